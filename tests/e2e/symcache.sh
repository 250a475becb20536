#!/bin/bash
# symcache.sh: the cache of DSO symbol tables (src/analyze/cache/symcache.c).
# A recording of a program with 1,500 functions (its table is cached) and
# libc: `scorch script` and `scorch perfparser` give the same bytes with
# the cache off, on the run that stores the images, on the runs that read
# them (strace shows the images opened, none written), with -j 2, with
# truncated, garbage and stale images (the binary touched: each ignored,
# then replaced), and with four runs racing on an empty cache (whole
# images, no temporary left). A table under 1,024 symbols is not stored.
. "$(dirname "$0")/lib.sh"

if ! perf record -q -o /dev/null -- true > /dev/null 2>&1; then
	skip symcache "perf record does not work here"
	exit 0
fi
python3 - "$W/many.c" <<'PY'
import sys
out = ["#include <stdio.h>", "volatile unsigned long sink;"]
for i in range(1500):
    out.append(f"__attribute__((noinline)) unsigned long f{i}(unsigned long x) {{ for (int k = 0; k < 40; k++) x = x * {i + 3} + k; return x; }}")
out.append("unsigned long (*fns[])(unsigned long) = {" + ", ".join(f"f{i}" for i in range(1500)) + "};")
out.append("int main(void) { unsigned long s = 0; for (int r = 0; r < 3000; r++) for (int i = 0; i < 1500; i++) s += fns[i](s + r); sink = s; printf(\"%lu\\n\", s); return 0; }")
open(sys.argv[1], "w").write("\n".join(out) + "\n")
PY
gcc -O1 -g -fno-omit-frame-pointer -o "$W/many" "$W/many.c" || { fail "symcache: build workload"; exit 0; }
perf record -q -e cpu-clock -F 2000 -g -o "$W/perf.data" -- "$W/many" > /dev/null 2>&1 || { fail symcache_record; exit 0; }

export XDG_CACHE_HOME=$W/xdg
D=$W/xdg/scorch/symtab-v1
run() { "$SCORCH" script -i "$W/perf.data" 2> /dev/null; }
imgs() { ls "$D"/*.syms 2> /dev/null; }

SCORCH_NO_CACHE=1 run > "$W/ref.txt"
SCORCH_NO_CACHE=1 "$SCORCH" perfparser --input "$W/perf.data" --output "$W/ref.pp" 2> /dev/null
check symcache_off_writes_nothing test ! -e "$D"
n=$(grep -c ' f[0-9]*+0x[0-9a-f]* (.*/many)' "$W/ref.txt")
check "symcache_output_names_the_functions ($n frames)" test "$n" -gt 100
run > "$W/store.txt"
check symcache_store_same_output cmp "$W/ref.txt" "$W/store.txt"
ni=$(imgs | wc -l)
check "symcache_stored ($ni images)" test "$ni" -ge 1
# which image is the workload's: the one holding its function names
M=$(grep -l 'f1499' $(imgs) 2> /dev/null | head -1)
check symcache_workload_image test -n "$M"
good=$(stat -c %s "$M" 2> /dev/null)
if command -v strace > /dev/null; then
	strace -f -e trace=openat -o "$W/strace.txt" "$SCORCH" script -i "$W/perf.data" > "$W/read.txt" 2> /dev/null
	check symcache_read_same_output cmp "$W/ref.txt" "$W/read.txt"
	check symcache_read_opens_image grep -q "symtab-v1/.*\.syms\", O_RDONLY" "$W/strace.txt"
	check symcache_read_writes_none bash -c "! grep -q 'symtab-v1/.*O_CREAT' '$W/strace.txt'"
else
	skip symcache_read_opens_image "strace is not installed"
fi
"$SCORCH" perfparser --input "$W/perf.data" --output "$W/read.pp" 2> /dev/null
check symcache_perfparser_same_stream cmp "$W/ref.pp" "$W/read.pp"
"$SCORCH" script -j 2 -i "$W/perf.data" > "$W/j2.txt" 2> /dev/null
check symcache_jobs_2_same_output cmp "$W/ref.txt" "$W/j2.txt"
for bad in truncate garbage stale; do
	case $bad in
	truncate) head -c $((good / 2)) "$M" > "$W/bad"; cp "$W/bad" "$M" ;;
	garbage) head -c "$good" /dev/urandom > "$W/bad"; cp "$W/bad" "$M" ;;
	stale) touch -d '+1 second' "$W/many" ;;
	esac
	before=$(md5sum < "$M")
	run > "$W/$bad.txt"
	check "symcache_${bad}_same_output" cmp "$W/ref.txt" "$W/$bad.txt"
	check "symcache_${bad}_replaced" bash -c "[ \"\$(stat -c %s '$M')\" = '$good' ] && [ \"\$(md5sum < '$M')\" != '$before' ]"
done
cache_race symcache run
cnt=$(ls "$D" | grep -c '\.syms$'); other=$(ls "$D" | grep -vc '\.syms$')
check "symcache_race_whole_images ($cnt images, $other other files)" test "$cnt" = "$ni" -a "$other" = 0
run > "$W/after.txt"
check symcache_after_race_same_output cmp "$W/ref.txt" "$W/after.txt"
# a small table (ld.so's, the vdso's) is not stored: every image holds >= 1024 symbols
small=0
for f in $(imgs); do
	[ "$(od -An -t u8 -j $((8 + 120)) -N 8 "$f" | tr -d ' ')" -ge 1024 ] || small=1
done
check symcache_small_tables_not_stored test $small = 0
