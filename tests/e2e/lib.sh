# lib.sh: helpers for the end-to-end tests. Source it; it sets $W (a scratch
# dir removed at exit) and defines pass/fail.
set -u
: "${SCORCH:=$TOP/build/scorch}"
: "${SCORCH_ASAN:=$TOP/build/asan/scorch}"
W=$(mktemp -d /tmp/scorch-e2e.XXXXXX)
trap 'rm -rf "$W"' EXIT
pass() { echo "PASS $*"; }
fail() { echo "FAIL $*"; }
check() { # check NAME CMD...: PASS when CMD succeeds
	local n=$1; shift
	if "$@"; then pass "$n"; else fail "$n"; fi
}
# perf script's sample header lines (everything up to the event name + ": ")
perf_headers() {
	perf script -i "$1" 2>/dev/null | grep -v -P '^\t' | grep -v '^$' |
		sed -E 's/^(.*[0-9]\.[0-9]{6}: +([0-9]+ +)?[^ ]+: ).*$/\1/'
}
