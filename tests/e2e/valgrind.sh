#!/bin/bash
# valgrind.sh: the analysis commands under valgrind (memcheck, leaks): no
# error, no leak, on a frame-pointer and a DWARF recording and a zstd peer file;
# script and perfparser -j 2 (block-parallel) on the DWARF recording.
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/e2e/lib.sh"
build_workload leaf_mid.c "$W/w" -O1 -g -fno-omit-frame-pointer -pthread
perf record -q -e cpu-clock -F 1000 -g -o "$W/fp.data" "$W/w" 100 > /dev/null 2>&1
perf record -q -e cpu-clock -F 500 --call-graph dwarf -o "$W/dw.data" "$W/w" 100 > /dev/null 2>&1
vg() { valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect "$@"; }
for f in "$W/fp.data" "$W/dw.data" "$TOP/tests/data/peer/vector_static_gcc/perf.data.zstd"; do
	n=$(basename "$f")
	for cmd in stats header script report perfparser; do
		case $cmd in
		perfparser) vg "$SCORCH" perfparser --input "$f" --output /dev/null > /dev/null 2> "$W/err" ;;
		*) vg "$SCORCH" $cmd -i "$f" > /dev/null 2> "$W/err" ;;
		esac
		rc=$?
		check "valgrind/$n $cmd (rc $rc)" [ $rc -le 2 ]
		if [ $rc = 99 ]; then grep -v "^scorch" "$W/err" | head -10; fi
	done
done
# block-parallel runs (analyze/blocks.h), blocks of 5 records: held and kept
# samples, block buffers, the threads' sessions and resolvers all freed
for cmd in script perfparser; do
	case $cmd in
	perfparser) SCORCH_BLOCK_RECORDS=5 vg "$SCORCH" perfparser -j 2 --input "$W/dw.data" --output /dev/null \
			> /dev/null 2> "$W/err" ;;
	*) SCORCH_BLOCK_RECORDS=5 vg "$SCORCH" script -j 2 -i "$W/dw.data" > /dev/null 2> "$W/err" ;;
	esac
	rc=$?
	check "valgrind/dw.data $cmd -j 2 in blocks of 5 (rc $rc)" [ $rc = 0 ]
	if [ $rc = 99 ]; then grep -v "^scorch" "$W/err" | head -10; fi
done
