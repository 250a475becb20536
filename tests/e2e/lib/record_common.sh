# record_common.sh: helpers for tests/e2e/record_*.sh (sourced, not run).
# Each check prints "PASS name" or "FAIL name: why".
TOP=${TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)}
SCORCH=${SCORCH:-$TOP/build/scorch}
SPIN=$TOP/build/workloads/record_spin
PERFPARSER=${PERFPARSER:-/usr/lib/x86_64-linux-gnu/libexec/hotspot-perfparser}
T=$(mktemp -d /tmp/scorch-rec.XXXXXX)
trap 'rm -rf "$T"' EXIT

pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; }
check() { # check NAME CONDITION-COMMAND... (runs the command, PASS when it succeeds)
	local n=$1; shift
	if "$@"; then pass "$n"; else fail "$n" "$*"; fi
}

# perf accepts the file: perf report --stats prints no warning or error.
perf_ok() { # FILE
	local out
	out=$(perf report --stats -i "$1" 2>&1 >/dev/null) || { echo "perf report failed: $out" >&2; return 1; }
	if echo "$out" | grep -qiE 'warn|error|fail|invalid|corrupt|unknown|unprocessable'; then
		echo "perf report --stats: $out" >&2
		return 1
	fi
	return 0
}

# perf script runs clean and shows N+ samples of the comm.
perf_script_has() { # FILE COMM MIN
	local err n
	err=$(perf script -i "$1" 2>&1 >"$T/script.out")
	if [ -n "$err" ] && echo "$err" | grep -qiE 'warn|error|fail|invalid'; then
		echo "perf script: $err" >&2
		return 1
	fi
	n=$(awk -v c="$2" '$1==c' "$T/script.out" | wc -l)
	[ "$n" -ge "$3" ] || { echo "perf script: $n samples of $2 (want >= $3)" >&2; return 1; }
}

# hotspot-perfparser reads it with no message beyond those it also prints
# for perf's own files (features it does not know, buffering notes).
perfparser_ok() { # FILE
	local out
	out=$("$PERFPARSER" --input "$1" --output /dev/null 2>&1) || { echo "perfparser failed" >&2; return 1; }
	out=$(echo "$out" | grep -vE 'feature not properly read PerfHeader::(SAMPLE_TIME|CLOCKID|CPU_TOPOLOGY)|FINISHED_ROUND detected|Switching to automatic buffering|unhandled event type 80 ' | grep -v '^$')
	[ -z "$out" ] || { echo "perfparser: $out" >&2; return 1; }
}

mode_is() { # FILE MODE
	[ "$(stat -c %a "$1")" = "$2" ]
}

samples_of() { # FILE -> number of samples perf sees
	perf report --stats -i "$1" 2>/dev/null | awk '/SAMPLE events:/{print $3; exit}'
}
