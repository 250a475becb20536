#!/bin/sh
# deps.sh: install the Debian packages scorch needs.
#   scripts/deps.sh                  build + test packages (make test, .ci/run)
#   scripts/deps.sh --build          build packages only (make, make demo)
#   scripts/deps.sh --deb            build packages + the package tools (make deb:
#                                    debhelper, dpkg-dev)
#   scripts/deps.sh [--build] --check  exit 0 when all are present, 1 otherwise
# Build: a C/C++ toolchain, pkg-config and the libraries of scripts/configure.sh
#        (xz-utils and binutils build the MiniDebugInfo test workload), scdoc
#        (the man pages, docs/man).
# Test peers and tools: linux-perf (perf), hotspot (hotspot-perfparser),
#        golang-go (go tool pprof), clang + libclang-rt-14-dev (libFuzzer,
#        sanitizers), valgrind, python3, chromium, nodejs/npm, xvfb,
#        man-db tmux zsh (tests/e2e/install.sh: pages, Tab in bash and zsh),
#        time (GNU time: peak RSS in tests/e2e/reader_record.sh and bench/)
# apt-get waits for a dpkg lock held by another install (several builds at
# once) instead of failing.
set -e
BUILD="gcc g++ make pkg-config binutils xz-utils libdw-dev libelf-dev libzstd-dev liburing-dev libdebuginfod-dev zlib1g-dev liblzma-dev scdoc libtraceevent-dev libcapstone-dev"
TEST="linux-perf strace hotspot golang-go clang libclang-rt-14-dev valgrind python3 debuginfod git man-db tmux zsh time"
build_only=0; check=0
for a in "$@"; do
	case $a in
	--build) build_only=1 ;;
	--deb) build_only=1; SCORCH_EXTRA_PKGS="${SCORCH_EXTRA_PKGS:-} debhelper dpkg-dev" ;;
	--check) check=1 ;;
	*) echo "usage: scripts/deps.sh [--build|--deb] [--check]" >&2; exit 2 ;;
	esac
done
PKGS="$BUILD ${SCORCH_EXTRA_PKGS:-}"
if [ $build_only = 0 ]; then
	PKGS="$PKGS $TEST"
	# node + npm for the browser tests (scripts/npm-deps.sh): Debian's, unless a
	# node with npm is already there (NodeSource's nodejs bundles npm and
	# conflicts with Debian's npm package)
	command -v npm > /dev/null 2>&1 || PKGS="$PKGS nodejs npm"
	PKGS="$PKGS xvfb xdotool x11-apps bc" # perfparser: hotspot screenshot (Xvfb), bench
	PKGS="$PKGS chromium" # outputs: flame graph and speedscope in headless Chromium
	PKGS="$PKGS tmux xterm" # live: scorch top in a real terminal (tests), its screenshot
fi

missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ $check = 1 ]; then
	[ -z "$missing" ]
	exit
fi
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "scorch: missing packages:$missing" >&2
	echo "scorch: run as root (or: sudo apt-get install$missing)" >&2
	exit 1
fi
echo "scorch: installing:$missing" >&2
export DEBIAN_FRONTEND=noninteractive
LOCK="-o DPkg::Lock::Timeout=900"
apt-get $LOCK update -qq
apt-get $LOCK install -y -qq $missing >/dev/null
