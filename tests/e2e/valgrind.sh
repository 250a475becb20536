#!/bin/bash
# valgrind.sh: the analysis commands under valgrind (memcheck, leaks): no
# error, no leak, on a frame-pointer and a DWARF recording and a zstd peer file;
# script and perfparser -j 2 (block-parallel) on the DWARF recording; and
# helgrind on script and perfparser -j 2 and -j 3: no race reported.
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/e2e/lib.sh"
build_workload leaf_mid.c "$W/w" -O1 -g -fno-omit-frame-pointer -pthread
perf record -q -e cpu-clock -F 1000 -g -o "$W/fp.data" "$W/w" 100 > /dev/null 2>&1
perf record -q -e cpu-clock -F 500 --call-graph dwarf -o "$W/dw.data" "$W/w" 100 > /dev/null 2>&1
vg() { valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect "$@"; }
hg() { valgrind -q --tool=helgrind --error-exitcode=99 "$@"; }
for f in "$W/fp.data" "$W/dw.data" "$TOP/tests/data/peer/vector_static_gcc/perf.data.zstd"; do
	n=$(basename "$f")
	for cmd in stats header script report perfparser; do
		case $cmd in
		perfparser) vg "$SCORCH" perfparser --input "$f" --output /dev/null > /dev/null 2> "$W/err" ;;
		*) vg "$SCORCH" $cmd -i "$f" > /dev/null 2> "$W/err" ;;
		esac
		rc=$?
		# each file is read whole: exit 0 (2, a file refused, fails too)
		check "valgrind/$n $cmd (rc $rc)" [ $rc = 0 ]
		if [ $rc = 99 ]; then grep -v "^scorch" "$W/err" | head -10; fi
	done
done
# block-parallel runs (analyze/parallel/blocks.h), blocks of 5 records: held and kept
# samples, block buffers, the threads' sessions and resolvers all freed
for cmd in script perfparser; do
	case $cmd in
	perfparser) vg "$SCORCH" perfparser --block-records 5 -j 2 --input "$W/dw.data" --output /dev/null \
			> /dev/null 2> "$W/err" ;;
	*) vg "$SCORCH" script --block-records 5 -j 2 -i "$W/dw.data" > /dev/null 2> "$W/err" ;;
	esac
	rc=$?
	check "valgrind/dw.data $cmd -j 2 in blocks of 5 (rc $rc)" [ $rc = 0 ]
	if [ $rc = 99 ]; then grep -v "^scorch" "$W/err" | head -10; fi
done
# the same under helgrind, at -j 2 and -j 3 on a 10 MB DWARF recording
# (thread 0's records handed to the others through the feed and let go
# when all are past them, blocks given by thread 0, the blocks handed over,
# the unwinders share CFI rows): no race reported; and script -j 3 without
# the feed (the shared reading's chunks go back to its pool and are taken
# again). (Before the shared chunks' count was annotated, input.c, script
# -j 3 reported one in 9 of 22 runs.)
perf record -q -e cpu-clock -F 4000 --call-graph dwarf -o "$W/hg.data" "$W/w" 500 > /dev/null 2>&1
# the hand-overs through atomics are told to helgrind (util/annotate.h) only
# in a build configured with valgrind's header: without it every one is a
# race (a build made before valgrind was installed: make demo, then make
# test, until make test installed its packages before building)
check "helgrind: $SCORCH was built with valgrind's header (HAVE_VALGRIND in $(dirname "$SCORCH")/cflags)" \
	grep -q -- -DHAVE_VALGRIND=1 "$(dirname "$SCORCH")/cflags"
# what helgrind says: the first report, not the threads' announcements
hg_report() {
	local r
	r=$(grep -v "^scorch" "$1" | sed -n '/Possible data race\|lock order\|unlocked a\|Thread #[0-9]*: /,$p' | head -40)
	[ -n "$r" ] || r=$(grep -v "^scorch" "$1" | head -30)
	printf '%s\n' "$r"
}
for j in 2 3; do
	for cmd in script perfparser; do
		case $cmd in
		perfparser) hg "$SCORCH" perfparser --block-records 5 -j $j --input "$W/hg.data" \
				--output /dev/null > /dev/null 2> "$W/err" ;;
		*) hg "$SCORCH" script --block-records 5 -j $j -i "$W/hg.data" > /dev/null 2> "$W/err" ;;
		esac
		rc=$?
		check "helgrind/hg.data ($(stat -c %s "$W/hg.data") bytes) $cmd -j $j in blocks of 5 (rc $rc)" \
			[ $rc = 0 -a "$(stat -c %s "$W/hg.data")" -gt 4000000 ]
		if [ $rc = 99 ]; then hg_report "$W/err"; fi
	done
done
# the runs that store and then read the on-disk caches (an empty cache
# directory: kallsyms, symbol tables, DWARF indexes written, then read) on
# a clang DWARF 5 binary (indexed addresses: scopes libdw must answer) and
# the GCC recording: no byte written unset, nothing read outside an image
if clang -O2 -g -o "$W/clang_inline" "$TOP/tests/workloads/clang_inline.c" 2> /dev/null &&
	perf record -q -e cpu-clock -F 1000 --call-graph dwarf -o "$W/clang.data" "$W/clang_inline" 40000 \
		> /dev/null 2>&1; then
	for f in "$W/clang.data" "$W/dw.data"; do
		rm -rf "$W/xdg"
		for pass in store read; do
			for cmd in script perfparser; do
				case $cmd in
				perfparser) XDG_CACHE_HOME=$W/xdg vg "$SCORCH" perfparser --input "$f" --output /dev/null \
						> /dev/null 2> "$W/err" ;;
				*) XDG_CACHE_HOME=$W/xdg vg "$SCORCH" script -i "$f" > /dev/null 2> "$W/err" ;;
				esac
				rc=$?
				check "valgrind/$(basename "$f") $cmd, caches $pass (rc $rc)" [ $rc = 0 ]
				if [ $rc = 99 ]; then grep -v "^scorch" "$W/err" | head -10; fi
			done
		done
	done
	n=$(ls "$W/xdg/scorch/dwindex-v1" 2> /dev/null | wc -l)
	check "valgrind: the DWARF indexes were stored ($n images)" [ "$n" -ge 1 ]
else
	fail "valgrind: build and record the clang workload"
fi
