#!/bin/bash
# dwindex.sh: the on-disk cache of DWARF indexes (src/analyze/cache/dwindex.c):
# line tables' indexes and CUs' function indexes. A recording of a program
# of 1,500 functions built -O2 -g (one CU: a line table of thousands of
# rows, an inlined function in each; and `spin`, a loop in top-level asm:
# in the CU's range, in no function DWARF describes): `scorch script`
# (inline frames: the function index, the CU from .debug_aranges, the
# addresses in no function) and `scorch perfparser` (file:line: the line
# table) give
# the same bytes with the cache off, on the run
# that stores the images, on the runs that read them (strace: the images
# opened, none written, none renamed), with -j 2 (one run on an empty
# cache stores what both threads made), with every image
# truncated, garbage or its entries damaged (each ignored, then replaced
# by a whole one), with the binary changed (stale: replaced), and with
# four runs racing on an empty cache (whole images, no temporary left),
# and exiting without freeing (the same images as with everything freed).
# The same for the unwinder's kept rules (unwind-v1, the same images, one
# per DSO file: the workload, libc, ld.so): stored, read (`scorch stats
# --unwind`: libdw asked for fewer rows), damaged and replaced alike.
. "$(dirname "$0")/lib.sh"

if ! perf record -q -o /dev/null -- true > /dev/null 2>&1; then
	skip dwindex "perf record does not work here"
	exit 0
fi
python3 - "$W/many.c" <<'PY'
import sys
out = ["#include <stdio.h>", "volatile unsigned long sink;",
       "__attribute__((noinline)) unsigned long leaf(unsigned long x) { for (int j = 0; j < 20; j++) x = x * 2654435761u + (unsigned long)j; return x; }",
       "static inline __attribute__((always_inline)) unsigned long step(unsigned long x, int k) { x = leaf(x ^ (unsigned long)k); return x + (x >> 7); }",
       "__asm__(\".text\\n.globl spin\\n.type spin,@function\\nspin:\\n.cfi_startproc\\nmov $400000, %ecx\\n1: dec %ecx\\njnz 1b\\nret\\n.cfi_endproc\\n.size spin, .-spin\\n\");",
       "extern void spin(void);"]
for i in range(1500):
    out.append(f"__attribute__((noinline)) unsigned long f{i}(unsigned long x) {{")
    out.append(f"  for (int k = 0; k < 8; k++)")
    out.append(f"    x = step(x, k + {i});")
    out.append(f"  return x;")
    out.append("}")
out.append("unsigned long (*fns[])(unsigned long) = {" + ", ".join(f"f{i}" for i in range(1500)) + "};")
out.append("int main(void) { unsigned long s = 0; for (int r = 0; r < 1500; r++) { spin(); for (int i = 0; i < 1500; i++) s += fns[i](s + r); } sink = s; printf(\"%lu\\n\", s); return 0; }")
open(sys.argv[1], "w").write("\n".join(out) + "\n")
PY
gcc -O2 -g -o "$W/many" "$W/many.c" || { fail "dwindex: build workload"; exit 0; }
perf record -q -e cpu-clock -F 1000 --call-graph dwarf,8192 -o "$W/perf.data" -- "$W/many" > /dev/null 2>&1 || { fail dwindex_record; exit 0; }

export XDG_CACHE_HOME=$W/xdg
D=$W/xdg/scorch/dwindex-v1
U=$W/xdg/scorch/unwind-v1
sc() { "$SCORCH" script -i "$W/perf.data" "$@" 2> /dev/null; }
pp() { "$SCORCH" perfparser --input "$W/perf.data" --output "$1" 2> /dev/null; }
imgs() { ls "$D"/*.idx "$U"/*.idx 2> /dev/null; }
cfi_rows() { "$SCORCH" stats --unwind -i "$W/perf.data" 2> /dev/null | sed -n 's/^cfi rows looked up: //p'; }

SCORCH_NO_CACHE=1 sc > "$W/ref.txt"
SCORCH_NO_CACHE=1 pp "$W/ref.pp"
check dwindex_off_writes_nothing test ! -e "$D" -a ! -e "$U"
cold=$(SCORCH_NO_CACHE=1 cfi_rows)
n=$(grep -c ' step+0x[0-9a-f]* (inlined)' "$W/ref.txt")
check "dwindex_output_has_inline_frames ($n)" test "$n" -gt 50
k=$(grep -c ' spin+0x' "$W/ref.txt")
check "dwindex_output_has_asm_frames ($k)" test "$k" -gt 10
l=$(strings "$W/ref.pp" | grep -c "many\.c")
check "dwindex_stream_has_file_lines" test "$l" -gt 0
sc > "$W/store.txt"
check dwindex_store_same_output cmp "$W/ref.txt" "$W/store.txt"
ni=$(ls "$D"/*.idx 2> /dev/null | wc -l)
check "dwindex_stored ($ni images)" test "$ni" -ge 1
nu=$(ls "$U"/*.idx 2> /dev/null | wc -l)
check "dwindex_unwind_stored ($nu images)" test "$nu" -ge 2
warm=$(cfi_rows)
check "dwindex_unwind_rows_kept (libdw rows: ${cold:-?} off, ${warm:-?} kept)" test "${cold:-0}" -gt 0 -a "${warm:-1}" -lt "${cold:-0}"
pp "$W/store.pp"
check dwindex_store_same_stream cmp "$W/ref.pp" "$W/store.pp"
if command -v strace > /dev/null; then
	strace -f -e trace=openat,rename -o "$W/strace.txt" "$SCORCH" script -i "$W/perf.data" > "$W/read.txt" 2> /dev/null
	check dwindex_read_same_output cmp "$W/ref.txt" "$W/read.txt"
	check dwindex_read_opens_images grep -q "dwindex-v1/.*\.idx\", O_RDONLY" "$W/strace.txt"
	check dwindex_read_opens_unwind_images grep -q "unwind-v1/.*\.idx\", O_RDONLY" "$W/strace.txt"
	check dwindex_read_writes_none bash -c "! grep -Eq '(dwindex|unwind)-v1/.*O_CREAT' '$W/strace.txt' && ! grep -Eq 'rename\(.*(dwindex|unwind)-v1' '$W/strace.txt'"
	strace -f -e trace=openat,rename -o "$W/strace.pp" "$SCORCH" perfparser --input "$W/perf.data" --output "$W/read.pp" 2> /dev/null
	check dwindex_perfparser_same_stream cmp "$W/ref.pp" "$W/read.pp"
	check dwindex_perfparser_writes_none bash -c "! grep -Eq '(dwindex|unwind)-v1/.*O_CREAT' '$W/strace.pp'"
else
	fail dwindex_read_opens_images "strace is not installed (scripts/deps.sh installs it)"
fi
# script and perfparser exit without freeing what they made (exit_after in
# pipeline.h): they store the same images as with everything freed first
for t in 1 0; do
	XDG_CACHE_HOME=$W/xdg.t$t SCORCH_TEARDOWN=$t sc > /dev/null
	XDG_CACHE_HOME=$W/xdg.t$t SCORCH_TEARDOWN=$t pp "$W/t$t.pp"
done
ti=$(find "$W/xdg.t1" -name '*.idx' | wc -l)
check "dwindex_exit_stores_as_teardown ($ti images)" \
	bash -c "[ $ti -ge 3 ] && diff -r '$W/xdg.t1' '$W/xdg.t0' > /dev/null"
sc -j 2 > "$W/j2.txt"
check dwindex_jobs_2_same_output cmp "$W/ref.txt" "$W/j2.txt"
"$SCORCH" perfparser -j 2 --input "$W/perf.data" --output "$W/j2.pp" 2> /dev/null
check dwindex_jobs_2_same_stream cmp "$W/ref.pp" "$W/j2.pp"
# a -j 2 run on an empty cache stores what both its threads made (each
# store merges the image the other stored first): the next one writes none
if command -v strace > /dev/null; then
	# (blocks of 3 records: both threads resolve samples of every DSO)
	XDG_CACHE_HOME=$W/xdg2 sc --block-records 3 -j 2 > /dev/null
	XDG_CACHE_HOME=$W/xdg2 strace -f -e trace=openat,rename -o "$W/strace.j2" \
		"$SCORCH" script -j 2 -i "$W/perf.data" > "$W/j2b.txt" 2> /dev/null
	w=$(grep -E 'O_CREAT|rename\(' "$W/strace.j2" | grep -cE '(dwindex|unwind|names)-v1/')
	check "dwindex_jobs_2_stores_in_one_run ($w written by the second)" test "$w" -eq 0
	check dwindex_jobs_2_stored_same_output cmp "$W/ref.txt" "$W/j2b.txt"
fi
cp -r "$D" "$W/good"
for bad in truncate garbage entries stale; do
	rm -rf "$D" && cp -r "$W/good" "$D"
	for f in $(imgs); do
		s=$(stat -c %s "$f")
		case $bad in
		truncate) head -c $((s / 2)) "$f" > "$W/bad" ;;
		garbage) head -c "$s" /dev/urandom > "$W/bad" ;;
		entries) # the entry table after the 80-byte header: random keys
			{ head -c 80 "$f"; head -c 48 /dev/urandom; tail -c +129 "$f"; } > "$W/bad" ;;
		stale) cp "$f" "$W/bad" ;;
		esac
		cp "$W/bad" "$f"
	done
	[ $bad = stale ] && touch -d '+1 second' "$W/many"
	sums=$(md5sum $(imgs) | sort)
	sc > "$W/$bad.txt"
	check "dwindex_${bad}_same_output" cmp "$W/ref.txt" "$W/$bad.txt"
	pp "$W/$bad.pp"
	check "dwindex_${bad}_same_stream" cmp "$W/ref.pp" "$W/$bad.pp"
	# the workload's image is made again: none left as it was damaged
	# (stale: the binary's image names another identity, so it is too)
	check "dwindex_${bad}_replaced" bash -c "[ \"\$(md5sum \$(ls '$D'/*.idx '$U'/*.idx) | sort)\" != \"$sums\" ]"
	sc > "$W/$bad.2.txt"
	check "dwindex_${bad}_then_read_same_output" cmp "$W/ref.txt" "$W/$bad.2.txt"
done
cache_race dwindex sc
cnt=$(ls "$D" "$U" | grep -c '\.idx$'); other=$(ls "$D" "$U" | grep -v '^/' | grep -v '^$' | grep -vc '\.idx$')
check "dwindex_race_whole_images ($cnt images, $other other files)" test "$cnt" -ge 3 -a "$other" = 0
sc > "$W/after.txt"
check dwindex_after_race_same_output cmp "$W/ref.txt" "$W/after.txt"
