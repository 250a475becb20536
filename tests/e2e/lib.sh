# lib.sh: the one helper library of the end-to-end tests (sourced, not run).
# Sets TOP, SCORCH, SCORCH_ASAN, W (a scratch dir removed at exit; T is the
# same dir, the record tests' name for it) and defines the result lines
# tests/run.sh counts:
#   pass NAME            PASS NAME
#   fail NAME [WHY...]   FAIL NAME[: WHY]
#   skip NAME WHY...     SKIP NAME (WHY): a check that could not run here
#   check NAME CMD...    PASS when CMD succeeds, else FAIL (with the command)
# and helpers for the recorder's tests (perf_ok, perf_script_has,
# perfparser_ok, mode_is, samples_of, and the readiness helpers wait_until,
# spin_pid, script_count, at_least, spin_gone), perf_headers and the cache
# tests' cache_race.
set -u
: "${TOP:=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
: "${SCORCH:=$TOP/build/scorch}"
: "${SCORCH_ASAN:=$TOP/build/asan/scorch}"
: "${PERFPARSER:=/usr/lib/x86_64-linux-gnu/libexec/hotspot-perfparser}"
SPIN=$TOP/build/workloads/record_spin
WL_SRC=$TOP/tests/workloads
W=$(mktemp -d /tmp/scorch-e2e.XXXXXX)
T=$W
trap 'rm -rf "$W"' EXIT
pass() { echo "PASS $*"; }
fail() {
	local n=$1; shift
	if [ $# -gt 0 ]; then echo "FAIL $n: $*"; else echo "FAIL $n"; fi
}
skip() {
	local n=$1; shift
	echo "SKIP $n ($*)"
}
check() { # check NAME CMD...: PASS when CMD succeeds
	local n=$1; shift
	if "$@"; then pass "$n"; else fail "$n" "$*"; fi
}

# The caches kept across runs (their tests use $W/xdg as XDG_CACHE_HOME):
# four runs of CMD at once from an empty cache, each storing its images as
# it goes; every one's output must equal $W/ref.txt.
cache_race() { # NAME CMD...: checks NAME_race_I_same_output, I = 1..4
	local n=$1 i; shift
	rm -rf "$W/xdg"
	for i in 1 2 3 4; do "$@" > "$W/race$i.txt" & done
	wait
	for i in 1 2 3 4; do check "${n}_race_${i}_same_output" cmp "$W/ref.txt" "$W/race$i.txt"; done
}

# Build tests/workloads/SRC into OUT with the given compiler flags.
build_workload() { # SRC OUT CFLAGS...
	local src=$1 out=$2; shift 2
	gcc "$@" -o "$out" "$WL_SRC/$src"
}

# perf script's sample header lines (everything up to the event name + ": ")
perf_headers() {
	perf script -i "$1" 2>/dev/null | grep -v -P '^\t' | grep -v '^$' |
		sed -E 's/^(.*[0-9]\.[0-9]{6}: +([0-9]+ +)?[^ ]+: ).*$/\1/'
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
	err=$(perf script -i "$1" 2>&1 >"$W/script.out")
	if [ -n "$err" ] && echo "$err" | grep -qiE 'warn|error|fail|invalid'; then
		echo "perf script: $err" >&2
		return 1
	fi
	n=$(awk -v c="$2" '$1==c' "$W/script.out" | wc -l)
	[ "$n" -ge "$3" ] || { echo "perf script: $n samples of $2 (want >= $3)" >&2; return 1; }
}

# hotspot-perfparser reads it with no message beyond those it also prints
# for perf's own files (features it does not know, buffering notes).
perfparser_ok() { # FILE
	local out
	out=$("$PERFPARSER" --input "$1" --output /dev/null 2>&1) || { echo "perfparser failed: $out" >&2; return 1; }
	out=$(echo "$out" | grep -vE 'feature not properly read PerfHeader::(SAMPLE_TIME|CLOCKID|CPU_TOPOLOGY)|FINISHED_ROUND detected|Switching to automatic buffering|unhandled event type 80 |unhandled event type [56] +PERF_RECORD_(UN)?THROTTLE' | grep -v '^$')
	[ -z "$out" ] || { echo "perfparser: $out" >&2; return 1; }
}

# perfparser_ok for a system-wide recording: it holds every process of the
# machine, and hotspot-perfparser warns about the host's own binaries: an
# ELF file it cannot find (a process of another mount namespace, as in a
# chroot or a CI container: "MissingElfFile") or cannot report ("failed to
# report elf"); and, under load, about its half-buffer flush heuristic
# ("Time order violation across buffer flush"; the file's order by perf's
# FINISHED_ROUND rule is checked by scorch stats). Those are printed, not
# failed on, unless they name the workload (WORKLOAD, a path); every other
# line fails.
perfparser_ok_system() { # FILE [WORKLOAD]
	local out host tolerated='failed to report elf for pid|Time order violation across buffer flush|PerfUnwind::MissingElfFile: Could not find ELF file for '
	out=$("$PERFPARSER" --input "$1" --output /dev/null 2>&1) || { echo "perfparser failed: $out" >&2; return 1; }
	out=$(echo "$out" | grep -vE 'feature not properly read PerfHeader::(SAMPLE_TIME|CLOCKID|CPU_TOPOLOGY)|FINISHED_ROUND detected|Switching to automatic buffering|unhandled event type 80 |unhandled event type [56] +PERF_RECORD_(UN)?THROTTLE' | grep -v '^$')
	host=$(echo "$out" | grep -E "$tolerated")
	if [ -n "$2" ] && echo "$host" | grep -qF "$2"; then
		echo "perfparser, about the workload: $(echo "$host" | grep -F "$2" | head -3)" >&2
		return 1
	fi
	[ -z "$host" ] || echo "perfparser (host, tolerated): $(echo "$host" | head -3)" >&2
	out=$(echo "$out" | grep -vE "$tolerated")
	[ -z "$out" ] || { echo "perfparser: $out" >&2; return 1; }
}

mode_is() { # FILE MODE
	[ "$(stat -c %a "$1")" = "$2" ]
}

samples_of() { # FILE -> number of samples perf sees
	perf report --stats -i "$1" 2>/dev/null | awk '/SAMPLE events:/{print $3; exit}'
}

# Readiness, never a fixed sleep: a test waits for what it needs to be true.
# wait_until SECS CMD...: runs CMD until it succeeds (a file the workload
# writes once it runs; samples written into a recording, whose header the
# recorder rewrites every second); 1 when it still fails after SECS, a bound
# for a broken run, not a measure of speed.
wait_until() {
	local secs=$1 end=$((SECONDS + $1))
	shift
	until "$@"; do
		[ $SECONDS -ge $end ] && { echo "still not true after ${secs} s: $*" >&2; return 1; }
		sleep 0.1
	done
}

# spin_pid FILE: the pid record_spin, run with RECORD_SPIN_READY=FILE, wrote
# to FILE once all its threads ran (waited for); empty when it never did.
spin_pid() {
	wait_until 120 test -s "$1" && cat "$1"
}

# script_count FILE REGEX: lines of perf script's output for FILE (perhaps
# still being recorded) that match REGEX
script_count() {
	perf script -i "$1" 2> /dev/null | grep -cE -- "$2"
}

# at_least N CMD...: CMD prints a number >= N
at_least() {
	local n
	n=$("${@:2}")
	[ "${n:-0}" -ge "$1" ]
}

# spin_gone PID: no record_spin runs as PID (the workload a test started)
spin_gone() {
	[ "$(cat "/proc/$1/comm" 2> /dev/null)" != record_spin ]
}
