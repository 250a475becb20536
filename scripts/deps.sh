#!/bin/sh
# deps.sh: install the Debian packages scorch needs to build and test.
#   scripts/deps.sh          install what is missing (root + apt-get)
#   scripts/deps.sh --check  exit 0 when everything is present, 1 otherwise
# Build: gcc make pkg-config libdw-dev libelf-dev libzstd-dev liburing-dev
#        libdebuginfod-dev zlib1g-dev libtraceevent-dev
# Test peers and tools: linux-perf (perf), hotspot (hotspot-perfparser),
#        golang-go (go tool pprof), clang + libclang-rt-14-dev (libFuzzer,
#        sanitizers), valgrind, python3, chromium, nodejs/npm, xvfb
set -e
BUILD="gcc make pkg-config libdw-dev libelf-dev libzstd-dev liburing-dev libdebuginfod-dev zlib1g-dev liblzma-dev g++ libtraceevent-dev"
TEST="xz-utils linux-perf hotspot golang-go clang libclang-rt-14-dev valgrind python3 g++ binutils debuginfod"
PKGS="$BUILD $TEST $SCORCH_EXTRA_PKGS"
# node + npm for the browser tests (scripts/npm-deps.sh): Debian's, unless a
# node with npm is already there (NodeSource's nodejs bundles npm and
# conflicts with Debian's npm package)
command -v npm > /dev/null 2>&1 || PKGS="$PKGS nodejs npm"
PKGS="$PKGS xvfb xdotool x11-apps bc" # perfparser: hotspot screenshot (Xvfb), bench
PKGS="$PKGS chromium" # outputs: flame graph and speedscope in headless Chromium

missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ "$1" = "--check" ]; then
	[ -z "$missing" ] && exit 0
	exit 1
fi
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "scorch: missing packages:$missing" >&2
	echo "scorch: run as root (or: sudo apt-get install$missing)" >&2
	exit 1
fi
echo "scorch: installing:$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq $missing >/dev/null
