#!/bin/bash
# reader_record.sh: record workloads with perf 6.1 (frame pointers + kernel,
# DWARF, threads, fork+exec, pipe mode, system-wide) and require every
# `scorch script` sample header to equal perf script's, byte for byte.
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/e2e/lib.sh"
cat > "$W/w.c" <<'C'
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
static volatile double x;
__attribute__((noinline)) static void leaf(int n) { for (int i = 0; i < n; i++) x += i * 0.5; }
__attribute__((noinline)) static void mid(int n) { leaf(n); }
static void *thr(void *a) { (void)a; for (int k = 0; k < 300; k++) mid(100000); return NULL; }
int main(int argc, char **argv) {
	if (argc > 1 && !strcmp(argv[1], "threads")) {
		pthread_t t[3];
		for (int i = 0; i < 3; i++) pthread_create(&t[i], NULL, thr, NULL);
		for (int i = 0; i < 3; i++) pthread_join(t[i], NULL);
	} else if (argc > 1 && !strcmp(argv[1], "forkexec")) {
		pid_t p = fork();
		if (p == 0) { execl(argv[0], argv[0], "child", (char *)NULL); _exit(127); }
		thr(NULL);
		waitpid(p, NULL, 0);
	} else {
		thr(NULL);
	}
	printf("%f\n", x);
	return 0;
}
C
gcc -O1 -g -fno-omit-frame-pointer -pthread -o "$W/w" "$W/w.c" || { fail "build workload"; exit 0; }
rec() { # NAME PERF-RECORD-ARGS... -- workload args
	local n=$1; shift
	perf record -q -o "$W/$n.data" "$@" > /dev/null 2>&1
}
rec fp -e cpu-clock -F 2000 -g "$W/w"
rec dwarf -e cpu-clock -F 1000 --call-graph dwarf "$W/w"
rec threads -e cpu-clock -F 2000 -g "$W/w" threads
rec forkexec -e cpu-clock -F 2000 -g "$W/w" forkexec
rec fixed -e cpu-clock -c 500000 "$W/w"
perf record -q -e cpu-clock -F 2000 -g -o - "$W/w" 2>/dev/null > "$W/pipe.data"
rec sysw -a -e cpu-clock -F 1000 -g -- "$W/w"
rec multi -e cpu-clock -e page-faults -F 1000 "$W/w"
for n in fp dwarf threads forkexec fixed pipe sysw multi; do
	f=$W/$n.data
	if [ ! -s "$f" ]; then fail "record $n with perf"; continue; fi
	perf_headers "$f" > "$W/$n.p"
	"$SCORCH" script --headers-only -i "$f" > "$W/$n.s" 2> "$W/$n.err"
	np=$(wc -l < "$W/$n.p")
	if cmp -s "$W/$n.p" "$W/$n.s" && [ "$np" -gt 50 ]; then
		pass "record/$n: $np sample headers == perf script"
	else
		fail "record/$n: headers differ from perf script ($np perf lines)"
		diff "$W/$n.p" "$W/$n.s" | head -5
	fi
	# sample counts agree with perf report --stats
	ps=$(perf report --stats -i "$f" 2>/dev/null | awk '/SAMPLE events:/ {print $3; exit}')
	ss=$("$SCORCH" stats -i "$f" | sed -n 's/^samples: //p')
	check "record/$n: stats samples $ss == perf report --stats $ps" [ "$ss" = "$ps" ]
	if [ -x "$SCORCH_ASAN" ]; then
		"$SCORCH_ASAN" script -i "$f" > /dev/null 2> "$W/asan" && ! grep -q Sanitizer "$W/asan"
		check "record/$n: ASan+UBSan script clean" [ $? = 0 ]
	fi
done
# comm changes at exec are seen in time order
grep -q ' child\| w ' "$W/forkexec.s"
check "record/forkexec: samples of both processes" [ "$(awk '{print $2}' "$W/forkexec.s" | sort -u | wc -l)" -ge 2 ]
