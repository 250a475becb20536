# outputs_workload.sh: sourced by tests/e2e/outputs_*.sh. Builds a small
# program with a known call tree (tests/workloads/outtest.c) into $W and
# records it with perf (scorch record when SCORCH_RECORD=1): main -> outer ->
# hot_a (~2/3) and hot_b (~1/3) on the main thread, and a thread named
# "worker" running worker_main -> hot_c. Sets $DATA (the perf.data) and $PROG.
PROG=$W/outtest
gcc -O0 -g -fno-omit-frame-pointer -pthread -o "$PROG" "$TOP/tests/workloads/outtest.c" || echo "FAIL outputs: cannot build the test program"
DATA=$W/perf.data
if [ "${SCORCH_RECORD:-0}" = 1 ]; then
	"$SCORCH" record -F 999 -g -o "$DATA" -- "$PROG" "${OUTTEST_SECS:-1.2}" > /dev/null 2>&1
else
	perf record -q -e cpu-clock -F 999 -g -o "$DATA" -- "$PROG" "${OUTTEST_SECS:-1.2}" > /dev/null 2>&1
fi
[ -s "$DATA" ] || echo "FAIL outputs: recording the test program failed"
# Does this build name functions (the resolver's symbols are in)?
if "$SCORCH" script -i "$DATA" 2>/dev/null | grep -q 'hot_a'; then HAVE_SYMS=1; else HAVE_SYMS=0; fi
