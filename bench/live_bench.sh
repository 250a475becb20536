#!/bin/bash
# live_bench.sh: the CPU scorch top costs against perf top with the same
# settings (event, frequency, call-graph mode, refresh, target), on a
# workload that keeps one CPU busy; prints each one's CPU seconds (user +
# system, its children included) for the same wall time, and the ratio.
#   bench/live_bench.sh [SECONDS]     (default 15 per run)
# perf top runs with --stdio (its TUI needs a terminal), scorch top with
# --stdio -n, both refreshing every second; both are told the workload's pid.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
S=${SCORCH:-$TOP/build/scorch}
SECS=${1:-15}
WL=$TOP/build/workloads
cpu_of() { # CMD...: CPU seconds of CMD and its children, run for SECS seconds
	python3 - "$SECS" "$@" <<'PY'
import resource, signal, subprocess, sys, time
secs = float(sys.argv[1])
p = subprocess.Popen(sys.argv[2:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                     stdin=subprocess.DEVNULL)
try:
    p.wait(timeout=secs + 10)
except subprocess.TimeoutExpired:
    p.send_signal(signal.SIGINT)
    p.wait()
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print("%.3f" % (r.ru_utime + r.ru_stime))
PY
}
"$WL/calls-fp" 100000000 > /dev/null &
fp_pid=$!
"$WL/calls-nofp" 100000000 > /dev/null &
nofp_pid=$!
trap 'kill $fp_pid $nofp_pid 2>/dev/null' EXIT
sleep 1
printf '%-34s %10s %10s %7s\n' "mode (-F 4000, -d 1, ${SECS}s)" "scorch s" "perf s" "ratio"
for mode in none fp dwarf; do
	case $mode in
	none) sopt=""; popt=""; pid=$fp_pid ;;
	fp) sopt="-g"; popt="-g"; pid=$fp_pid ;;
	dwarf) sopt="--call-graph dwarf"; popt="--call-graph dwarf"; pid=$nofp_pid ;;
	esac
	s=$(cpu_of "$S" top --stdio -e cpu-clock -F 4000 $sopt -d 1 -n "$SECS" -p "$pid")
	p=$(cpu_of timeout -s INT "$SECS" perf top --stdio -e cpu-clock -F 4000 $popt -d 1 -p "$pid")
	r=$(python3 -c "print('%.2f' % ($s / $p) if $p > 0 else 'inf')")
	printf '%-34s %10s %10s %7s\n' "$mode" "$s" "$p" "$r"
done
echo "(ratio: scorch top CPU / perf top CPU; below 1 is cheaper)"
