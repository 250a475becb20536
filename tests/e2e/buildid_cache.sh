#!/bin/bash
# buildid_cache.sh: scorch record adds what its samples hit to perf's
# build-id cache, so a recording stays readable after its program is rebuilt
# at the same path: scorch report and script name the old functions, and
# perf report, reading the cache scorch wrote, agrees. Then -N, and the size
# limit (scorch buildid-cache --prune, SCORCH_BUILDID_CACHE_MAX). Every
# cache here is under a private HOME in $W.
. "$(dirname "$0")/lib.sh"
unset DEBUGINFOD_URLS SCORCH_BUILDID_CACHE_MAX
if ! command -v perf > /dev/null; then
	skip buildid_cache "no perf"
	exit 0
fi
export HOME=$W/home
mkdir -p "$HOME" "$W/bin"
prog() { # NAME: a program whose hot function is NAME_spin, in $W/bin/prog
	cat > "$W/prog.c" <<EOF
#include <stdlib.h>
__attribute__((noinline)) double $1_spin(long n)
{
	double s = 0;
	for (long i = 0; i < n; i++)
		s += (double)i * 0.5;
	return s;
}
int main(int argc, char **argv) { return $1_spin(atol(argv[1])) > 1 ? 0 : 1; }
EOF
	gcc -O1 -g -fno-omit-frame-pointer -o "$W/bin/prog" "$W/prog.c"
}

prog old
old_id=$(readelf -n "$W/bin/prog" | awk '/Build ID/ { print $3 }')
"$SCORCH" record -q -e cpu-clock -g -o "$W/old.data" -- "$W/bin/prog" 100000000
check buildid_cache_record test $? = 0
"$SCORCH" buildid-cache -l > "$W/list"
check buildid_cache_lists_program grep -qx "$old_id $W/bin/prog" "$W/list"
check buildid_cache_elf_is_program cmp "$HOME/.debug/.build-id/${old_id:0:2}/${old_id:2}/elf" "$W/bin/prog"
# perf sees the same cache: its list (entries whose file is still in place)
# is scorch's
perf buildid-cache -l 2> /dev/null | sort > "$W/perf.list"
check buildid_cache_perf_lists_same cmp "$W/perf.list" "$W/list"
"$SCORCH" script -i "$W/old.data" > "$W/before.script" 2> /dev/null

# rebuild at the same path with other code
prog new
new_id=$(readelf -n "$W/bin/prog" | awk '/Build ID/ { print $3 }')
check buildid_cache_rebuilt test "$old_id" != "$new_id"

"$SCORCH" report --stdio -i "$W/old.data" > "$W/report" 2> "$W/report.err"
check buildid_cache_report_old_name grep -qE '[0-9.]+%.* prog +\[\.\] old_spin$' "$W/report"
check buildid_cache_report_no_warning test ! -s "$W/report.err"
"$SCORCH" script -i "$W/old.data" > "$W/after.script" 2> "$W/script.err"
check buildid_cache_script_old_name grep -q "old_spin+0x[0-9a-f]* ($W/bin/prog)" "$W/after.script"
check buildid_cache_script_unchanged cmp "$W/before.script" "$W/after.script"
check buildid_cache_script_no_new_name test "$(grep -c new_spin "$W/after.script")" = 0
# perf report, reading the cache scorch wrote: the same share for old_spin
perf report --stdio --no-children --sort dso,sym -i "$W/old.data" 2> /dev/null |
	awk '/\[\.\] old_spin/ { print $1 }' > "$W/perf.pct"
"$SCORCH" report --stdio --no-children -i "$W/old.data" 2> /dev/null |
	awk '/\[\.\] old_spin$/ { print $1 }' > "$W/scorch.pct"
if [ -s "$W/perf.pct" ] && cmp -s "$W/perf.pct" "$W/scorch.pct"; then
	pass buildid_cache_perf_report_agrees
else
	fail buildid_cache_perf_report_agrees "perf $(cat "$W/perf.pct"), scorch $(cat "$W/scorch.pct")"
fi

# without the cache the old recording has no names for prog: the checks
# above can fail
mv "$HOME/.debug" "$W/saved.debug"
"$SCORCH" script -i "$W/old.data" > "$W/nocache.script" 2> "$W/nocache.err"
if grep -q "build id differs" "$W/nocache.err" && ! grep -q old_spin "$W/nocache.script"; then
	pass buildid_cache_control_without_cache
else
	fail buildid_cache_control_without_cache "$(head -1 "$W/nocache.err")"
fi
mv "$W/saved.debug" "$HOME/.debug"

# -N: nothing added
HOME=$W/home2 "$SCORCH" record -q -N -e cpu-clock -o "$W/n.data" -- "$W/bin/prog" 1000000
check buildid_cache_no_buildid_cache test ! -e "$W/home2/.debug"
HOME=$W/home2 "$SCORCH" record -q --no-buildid-cache -e cpu-clock -o "$W/n.data" -- "$W/bin/prog" 1000000
check buildid_cache_no_buildid_cache_long test ! -e "$W/home2/.debug"

# the size limit: the entries used longest ago go first
"$SCORCH" record -q -e cpu-clock -o "$W/new.data" -- "$W/bin/prog" 100000000
find "$HOME/.debug" -mindepth 1 -type d ! -path '*/.build-id*' -exec touch -d '2001-01-01' {} +
edir=$HOME/.debug$W/bin/prog/$new_id
touch "$edir"
keep=$(stat -c %s "$edir"/* | awk '{ s += $1 } END { print s }')
"$SCORCH" buildid-cache --prune="$keep" 2> "$W/prune.err"
"$SCORCH" buildid-cache -l > "$W/list2"
check buildid_cache_prune_keeps_newest test "$(cat "$W/list2")" = "$new_id $W/bin/prog"
check buildid_cache_prune_removes_files test ! -e "$HOME/.debug$W/bin/prog/$old_id"
n=$(find "$HOME/.debug/.build-id" -type l | wc -l)
check buildid_cache_prune_removes_links test "$n" = 1
"$SCORCH" buildid-cache --prune=1 2> /dev/null
check buildid_cache_prune_all test ! -s <("$SCORCH" buildid-cache -l)
# record keeps the cache under SCORCH_BUILDID_CACHE_MAX
SCORCH_BUILDID_CACHE_MAX=1K "$SCORCH" record -q -e cpu-clock -o "$W/l.data" -- "$W/bin/prog" 1000000
total=$(find "$HOME/.debug" -type f -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }')
check buildid_cache_record_limit test "$total" -le 1024
check buildid_cache_bad_prune_size test "$("$SCORCH" buildid-cache --prune=x 2>&1 > /dev/null; echo $?)" != 0
