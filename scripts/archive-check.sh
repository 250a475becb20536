#!/bin/bash
# archive-check.sh: a recording archived by `scorch archive` and copied
# alone into a pristine Debian 12 root where only scorch's .deb is
# installed gives the same `scorch report` and `scorch script` as on the
# recording machine.
#
#   1. the .deb: dpkg-buildpackage in a clone of this repository's
#      committed HEAD (the build packages: scripts/deps.sh --deb);
#   2. here, with that package's scorch (unpacked, not installed): a C++
#      program with two shared libraries of its own, built in a temporary
#      directory, recorded with DWARF stacks and kernel frames; its report
#      and script; the archive;
#   3. a pristine root (scripts/fresh-check.sh's cached debootstrap base,
#      /var/tmp/scorch-fresh-base.tgz; made when missing), apt-get install
#      of the .deb alone (it pulls its libraries), the archive copied in as
#      /root/perf.data, /proc unmounted (so the kernel's symbols can only
#      come from the archive); scorch report and scorch script there, with
#      nothing but the archive, compared byte for byte.
# Prints the sizes (recording, files, archive) and PASS or FAIL; exit 0
# only when both outputs are identical. Needs root; takes minutes (the
# package build), so it is not part of make test.
# Usage: scripts/archive-check.sh [--keep] [--root DIR]
set -u
cd "$(dirname "$0")/.."
repo=$PWD
root=/var/tmp/scorch-archive-root
base=${SCORCH_FRESH_BASE:-/var/tmp/scorch-fresh-base.tgz}
keep=0
while [ $# -gt 0 ]; do
	case $1 in
	--keep) keep=1 ;;
	--root) root=$2; shift ;;
	*) echo "usage: $0 [--keep] [--root DIR]" >&2; exit 2 ;;
	esac
	shift
done
[ "$(id -u)" = 0 ] || { echo "archive-check: needs root (debootstrap, chroot)" >&2; exit 2; }
W=$(mktemp -d /tmp/scorch-archive-check.XXXXXX)
unmount_all() {
	for m in dev/pts dev sys proc; do
		mountpoint -q "$root/$m" 2> /dev/null && umount -R "$root/$m" 2> /dev/null || true
	done
}
cleanup() {
	unmount_all
	if [ $keep = 0 ]; then rm -rf --one-file-system "$root" "$W"; fi
}
trap cleanup EXIT
fail() { echo "archive-check: FAIL $*"; exit 1; }
in_root() { chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 "$@"; }

# ---- 1. the package ----
t0=$SECONDS
echo "== the .deb: dpkg-buildpackage in a clone of $(git rev-parse --short HEAD)"
scripts/deps.sh --deb > "$W/deps.log" 2>&1 || { tail -5 "$W/deps.log"; fail "scripts/deps.sh --deb"; }
git clone -q "$repo" "$W/src/scorch" || fail "git clone"
(cd "$W/src/scorch" && dpkg-buildpackage -us -uc -b) > "$W/deb.log" 2>&1 ||
	{ tail -20 "$W/deb.log"; fail "dpkg-buildpackage (log kept: --keep)"; }
deb=$(ls "$W"/src/scorch_*.deb | head -1)
[ -n "$deb" ] || fail "no .deb"
echo "   $(basename "$deb") ($((SECONDS - t0)) s)"
dpkg-deb -x "$deb" "$W/pkg"
S=$W/pkg/usr/bin/scorch
[ -x "$S" ] || fail "no usr/bin/scorch in the package"

# ---- 2. the recording machine: this one ----
echo "== here: record, report, script, archive"
mkdir -p "$W/bin" "$W/rec" "$W/home"
cat > "$W/liba.cpp" <<'EOF'
#include <vector>
namespace a {
__attribute__((noinline)) double work_a(long n)
{
	std::vector<double> v(64);
	double s = 0;
	for (long i = 0; i < n; i++) {
		v[i & 63] += (double)i * 0.5;
		s += v[(i * 7) & 63];
	}
	return s;
}
}
EOF
cat > "$W/libb.cpp" <<'EOF'
#include <fcntl.h>
#include <unistd.h>
namespace a { double work_a(long n); }
namespace b {
__attribute__((noinline)) double work_b(long n)
{
	double s = 0;
	char buf[4096];
	for (int k = 0; k < 20; k++) {
		s += a::work_a(n / 40);
		int fd = open("/dev/zero", O_RDONLY);
		for (int j = 0; j < 300; j++)
			s += (double)read(fd, buf, sizeof buf);
		close(fd);
	}
	return s;
}
}
EOF
cat > "$W/main.cpp" <<'EOF'
#include <cstdio>
#include <cstdlib>
namespace b { double work_b(long n); }
__attribute__((noinline)) double run(long n) { return b::work_b(n); }
int main(int argc, char **argv) { std::printf("%f\n", run(std::atol(argv[1]))); return 0; }
EOF
g++ -O1 -g -fPIC -shared -o "$W/bin/liba.so" "$W/liba.cpp" &&
	g++ -O1 -g -fPIC -shared -o "$W/bin/libb.so" "$W/libb.cpp" -L"$W/bin" -la -Wl,-rpath,"$W/bin" &&
	g++ -O1 -g -o "$W/bin/prog" "$W/main.cpp" -L"$W/bin" -lb -la -Wl,-rpath,"$W/bin" || fail "building the program"
export HOME=$W/home XDG_CACHE_HOME=$W/home/.cache
unset DEBUGINFOD_URLS
cd "$W/rec" || exit 1
"$S" record -q -N --call-graph dwarf -e cpu-clock -- "$W/bin/prog" 200000000 > /dev/null || fail "scorch record"
"$S" report --stdio > "$W/report.here" 2> "$W/report.here.err" || fail "scorch report here"
"$S" script > "$W/script.here" 2> "$W/script.here.err" || fail "scorch script here"
"$S" archive -o "$W/perf.data.tar.zst" 2> "$W/archive.err" || { cat "$W/archive.err"; fail "scorch archive"; }
cat "$W/archive.err"
cd "$repo" || exit 1
grep -q '\[kernel\.kallsyms\]' "$W/script.here" || echo "archive-check: note: no kernel frames here (kptr_restrict?)"

# ---- 3. the pristine root ----
unmount_all
rm -rf --one-file-system "$root"
mkdir -p "$root"
if [ ! -s "$base" ]; then
	echo "== no $base: scripts/fresh-check.sh makes it"
	scripts/fresh-check.sh --keep --root "$root.base" -- true > "$W/fresh.log" 2>&1 ||
		{ tail -10 "$W/fresh.log"; fail "making the base root"; }
	rm -rf --one-file-system "$root.base"
fi
tar -xzf "$base" -C "$root" || fail "unpacking $base"
cp /etc/resolv.conf "$root/etc/resolv.conf"
for f in /etc/apt/apt.conf.d/99artifact-registry /etc/apt/apt.conf.d/*proxy*; do
	[ -f "$f" ] && cp "$f" "$root/etc/apt/apt.conf.d/"
done
mount --bind /proc "$root/proc"
mount --rbind /dev "$root/dev"; mount --make-rslave "$root/dev"
echo "== pristine root: apt-get install ./$(basename "$deb") (nothing else)"
cp "$deb" "$root/root/"
in_root sh -c 'apt-get update -qq && cd /root && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ./scorch_*.deb' \
	> "$W/install.log" 2>&1 || { tail -10 "$W/install.log"; fail "apt-get install the .deb"; }
rm -f "$root"/root/scorch_*.deb
umount -R "$root/proc"
cp "$W/perf.data.tar.zst" "$root/root/perf.data"
echo "== pristine root: scorch report, scorch script (no /proc; only the archive)"
in_root sh -c 'cd /root && scorch report --stdio' > "$W/report.there" 2> "$W/report.there.err"
rr=$?
in_root sh -c 'cd /root && scorch script' > "$W/script.there" 2> "$W/script.there.err"
rs=$?
[ -z "$(ls -A "$root/tmp")" ] || echo "archive-check: note: $root/tmp is not empty: $(ls "$root/tmp")"

rec=$(stat -c %s "$W/rec/perf.data")
arc=$(stat -c %s "$W/perf.data.tar.zst")
echo "== sizes: recording $rec bytes, archive $arc bytes ($(awk -v a="$arc" -v r="$rec" 'BEGIN { printf "%.1f%%", 100 * a / r }') of the recording)"
echo "   $(wc -l < "$W/script.here") script lines, $(grep -c '\[kernel\.kallsyms\]' "$W/script.here") kernel frames; report $(wc -l < "$W/report.here") lines"
nfail=0
for o in report script; do
	rc=$rr; [ $o = script ] && rc=$rs
	if [ "$rc" = 0 ] && cmp -s "$W/$o.here" "$W/$o.there"; then
		echo "archive-check: PASS scorch $o in the pristine root equals the recording machine's ($(md5sum < "$W/$o.here" | cut -c1-12))"
	else
		nfail=$((nfail + 1))
		echo "archive-check: FAIL scorch $o in the pristine root (exit $rc) differs:"
		head -5 "$W/$o.there.err"
		diff "$W/$o.here" "$W/$o.there" | head -20
	fi
done
[ -s "$W/report.there.err" ] && { echo "   report's stderr there:"; head -5 "$W/report.there.err"; }
exit $nfail
