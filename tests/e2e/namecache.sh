#!/bin/bash
# namecache.sh: demangled names kept across runs (src/analyze/cache/namecache.c,
# ~/.cache/scorch/names-v1). A C++ program of 400 functions in a namespace
# and templates, recorded with frame pointers: `scorch script` and
# `scorch perfparser` give the same bytes with the cache off, on the run
# that stores the names, on the runs that read them (strace: the image
# opened, none written), with -j 2, with the image truncated, garbage, its
# entries damaged or stale (the binary touched: each ignored, then
# replaced), and with four runs racing on an empty cache.
. "$(dirname "$0")/lib.sh"

if ! perf record -q -o /dev/null -- true > /dev/null 2>&1; then
	skip namecache "perf record does not work here"
	exit 0
fi
python3 - "$W/names.cpp" <<'PY'
import sys
out = ["#include <cstdio>", "volatile unsigned long sink;", "namespace app { namespace detail {",
       "template <int N> struct Step { static __attribute__((noinline)) unsigned long run(unsigned long x) { for (int k = 0; k < 30; k++) x = x * (N + 3) + k; return x; } };"]
for i in range(400):
    out.append(f"__attribute__((noinline)) unsigned long work{i}(unsigned long x) {{ return Step<{i}>::run(x) ^ {i}; }}")
out.append("} }")
out.append("unsigned long (*fns[])(unsigned long) = {" + ", ".join(f"app::detail::work{i}" for i in range(400)) + "};")
out.append("int main() { unsigned long s = 0; for (int r = 0; r < 6000; r++) for (int i = 0; i < 400; i++) s += fns[i](s + r); sink = s; std::printf(\"%lu\\n\", s); return 0; }")
open(sys.argv[1], "w").write("\n".join(out) + "\n")
PY
g++ -O1 -g -fno-omit-frame-pointer -o "$W/names" "$W/names.cpp" || { fail "namecache: build workload"; exit 0; }
perf record -q -e cpu-clock -F 2000 -g -o "$W/perf.data" -- "$W/names" > /dev/null 2>&1 || { fail namecache_record; exit 0; }

export XDG_CACHE_HOME=$W/xdg
D=$W/xdg/scorch/names-v1
sc() { "$SCORCH" script -i "$W/perf.data" "$@" 2> /dev/null; }
pp() { "$SCORCH" perfparser --input "$W/perf.data" --output "$1" 2> /dev/null; }
imgs() { ls "$D"/*.idx 2> /dev/null; }

SCORCH_NO_CACHE=1 sc > "$W/ref.txt"
SCORCH_NO_CACHE=1 pp "$W/ref.pp"
check namecache_off_writes_nothing test ! -e "$D"
n=$(grep -c 'app::detail::Step<[0-9]*>::run' "$W/ref.txt")
check "namecache_output_has_demangled_names ($n frames)" test "$n" -gt 100
sc > "$W/store.txt"
check namecache_store_same_output cmp "$W/ref.txt" "$W/store.txt"
ni=$(imgs | wc -l)
check "namecache_stored ($ni images)" test "$ni" -ge 1
M=$(grep -l 'app::detail::Step' $(imgs) 2> /dev/null | head -1)
check namecache_workload_image test -n "$M"
pp "$W/store.pp"
check namecache_store_same_stream cmp "$W/ref.pp" "$W/store.pp"
if command -v strace > /dev/null; then
	strace -f -e trace=openat,rename -o "$W/strace.txt" "$SCORCH" script -i "$W/perf.data" > "$W/read.txt" 2> /dev/null
	check namecache_read_same_output cmp "$W/ref.txt" "$W/read.txt"
	check namecache_read_opens_image grep -q "names-v1/.*\.idx\", O_RDONLY" "$W/strace.txt"
	check namecache_read_writes_none bash -c "! grep -q 'names-v1/.*O_CREAT' '$W/strace.txt' && ! grep -q 'rename(.*names-v1' '$W/strace.txt'"
else
	fail namecache_read_opens_image "strace is not installed (scripts/deps.sh installs it)"
fi
sc -j 2 > "$W/j2.txt"
check namecache_jobs_2_same_output cmp "$W/ref.txt" "$W/j2.txt"
"$SCORCH" perfparser -j 2 --input "$W/perf.data" --output "$W/j2.pp" 2> /dev/null
check namecache_jobs_2_same_stream cmp "$W/ref.pp" "$W/j2.pp"
cp -r "$D" "$W/good"
for bad in truncate garbage entries stale; do
	rm -rf "$D" && cp -r "$W/good" "$D"
	s=$(stat -c %s "$M")
	case $bad in
	truncate) head -c $((s / 2)) "$M" > "$W/bad" ;;
	garbage) head -c "$s" /dev/urandom > "$W/bad" ;;
	entries) # the entry's header and first rows after the image's 80 + 24 bytes
		{ head -c 104 "$M"; head -c 64 /dev/urandom; tail -c +169 "$M"; } > "$W/bad" ;;
	stale) cp "$M" "$W/bad" ;;
	esac
	cp "$W/bad" "$M"
	[ $bad = stale ] && touch -d '+1 second' "$W/names"
	before=$(md5sum < "$M")
	sc > "$W/$bad.txt"
	check "namecache_${bad}_same_output" cmp "$W/ref.txt" "$W/$bad.txt"
	pp "$W/$bad.pp"
	check "namecache_${bad}_same_stream" cmp "$W/ref.pp" "$W/$bad.pp"
	check "namecache_${bad}_replaced" bash -c "[ \"\$(md5sum < '$M')\" != '$before' ]"
done
cache_race namecache sc
cnt=$(ls "$D" | grep -c '\.idx$'); other=$(ls "$D" | grep -vc '\.idx$')
check "namecache_race_whole_images ($cnt images, $other other files)" test "$cnt" -ge 1 -a "$other" = 0
sc > "$W/after.txt"
check namecache_after_race_same_output cmp "$W/ref.txt" "$W/after.txt"
