# outputs_workload.sh: sourced by tests/e2e/outputs_*.sh. Builds a small
# program with a known call tree into $W and records it with perf (scorch
# record when SCORCH_RECORD=1): main -> outer -> hot_a (~2/3) and hot_b
# (~1/3) on the main thread, and a thread named "worker" running
# worker_main -> hot_c. Sets $DATA (the perf.data) and $PROG.
PROG=$W/outtest
cat > "$W/outtest.c" <<'CEOF'
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
static volatile unsigned long sink;
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }
__attribute__((noinline)) void hot_a(void) { for (int i = 0; i < 400000; i++) sink += i * 7; }
__attribute__((noinline)) void hot_b(void) { for (int i = 0; i < 200000; i++) sink += i * 3; }
__attribute__((noinline)) void hot_c(void) { for (int i = 0; i < 200000; i++) sink ^= i; }
__attribute__((noinline)) void outer(void) { hot_a(); hot_b(); }
static double secs;
static void *worker_main(void *a) { pthread_setname_np(pthread_self(), "worker"); double t0 = now(); while (now() - t0 < secs / 2) hot_c(); return a; }
int main(int argc, char **argv)
{
	secs = argc > 1 ? atof(argv[1]) : 1.0;
	pthread_t th;
	pthread_create(&th, 0, worker_main, 0);
	double t0 = now();
	while (now() - t0 < secs) outer();
	pthread_join(th, 0);
	return 0;
}
CEOF
gcc -O0 -g -fno-omit-frame-pointer -pthread -o "$PROG" "$W/outtest.c" || echo "FAIL outputs: cannot build the test program"
DATA=$W/perf.data
if [ "${SCORCH_RECORD:-0}" = 1 ]; then
	"$SCORCH" record -F 999 -g -o "$DATA" -- "$PROG" "${OUTTEST_SECS:-1.2}" > /dev/null 2>&1
else
	perf record -q -e cpu-clock -F 999 -g -o "$DATA" -- "$PROG" "${OUTTEST_SECS:-1.2}" > /dev/null 2>&1
fi
[ -s "$DATA" ] || echo "FAIL outputs: recording the test program failed"
# Does this build name functions (the resolver's symbols are in)?
if "$SCORCH" script -i "$DATA" 2>/dev/null | grep -q 'hot_a'; then HAVE_SYMS=1; else HAVE_SYMS=0; fi
