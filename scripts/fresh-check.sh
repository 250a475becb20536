#!/bin/bash
# fresh-check.sh: the README's set-up on a pristine Debian 12 machine.
#
# Builds a minimal Debian 12 root with debootstrap from the apt mirror this
# machine uses, binds /proc /sys /dev into it, installs only `make` (what a
# user needs to type the first command), clones this repository's committed
# HEAD into it and runs `make demo` inside chroot; with --test also
# `make test`. A green CI on a machine that already has every package hides
# a missing install step; this does not.
#
# Usage: scripts/fresh-check.sh [--test] [--deb] [--keep] [--root DIR] [-- CMD...]
#   --test      also run `make test` after `make demo`
#   --deb       instead of make demo: the Debian package from build-dep to
#               purge, in this root and a second pristine one
#               (scripts/deb-check.sh)
#   --keep      keep the root afterwards (default: removed)
#   --root DIR  where to build it (default /var/tmp/scorch-fresh)
#   -- CMD...   run CMD in the clone inside the root instead of the checks
#               (e.g. another script's own steps on the same pristine root)
# The minbase root is cached as a tarball (/var/tmp/scorch-fresh-base.tgz,
# SCORCH_FRESH_BASE) so a rerun skips debootstrap; the cache holds the
# pristine root only, never anything installed by a check.
set -eu
cd "$(dirname "$0")/.."
repo=$PWD
root=/var/tmp/scorch-fresh
base=${SCORCH_FRESH_BASE:-/var/tmp/scorch-fresh-base.tgz}
run_test=0; keep=0; deb=0; cmd=()
while [ $# -gt 0 ]; do
	case $1 in
	--test) run_test=1 ;;
	--deb) deb=1 ;;
	--keep) keep=1 ;;
	--root) root=$2; shift ;;
	--) shift; cmd=("$@"); break ;;
	*) echo "usage: $0 [--test] [--deb] [--keep] [--root DIR] [-- CMD...]" >&2; exit 2 ;;
	esac
	shift
done
[ "$(id -u)" = 0 ] || { echo "fresh-check: needs root (debootstrap, chroot)" >&2; exit 2; }

# the mirror this machine's apt uses (deb822 or one-line sources)
mirror=$(awk '/^URIs:/ { print $2; exit }' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
[ -n "$mirror" ] || mirror=$(awk '$1 == "deb" && $0 ~ /bookworm/ { print $2; exit }' /etc/apt/sources.list 2>/dev/null || true)
[ -n "$mirror" ] || mirror=http://deb.debian.org/debian

command -v debootstrap > /dev/null || {
	echo "fresh-check: installing debootstrap" >&2
	DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=900 install -y -qq debootstrap > /dev/null
}

unmount_all() {
	for m in dev/pts dev sys proc; do
		mountpoint -q "$root/$m" 2>/dev/null && umount -R "$root/$m" 2>/dev/null || true
	done
}
cleanup() {
	unmount_all
	[ $keep = 1 ] || rm -rf --one-file-system "$root"
}
trap cleanup EXIT
unmount_all
rm -rf --one-file-system "$root"
mkdir -p "$root"
t0=$SECONDS
if [ -s "$base" ]; then
	tar -xzf "$base" -C "$root"
	echo "== pristine Debian 12 root from $base"
else
	echo "== debootstrap --variant=minbase bookworm $root $mirror"
	debootstrap --variant=minbase bookworm "$root" "$mirror" > "$root.debootstrap.log" 2>&1 ||
		{ tail -20 "$root.debootstrap.log"; exit 1; }
	tar -czf "$base.tmp" -C "$root" . && mv "$base.tmp" "$base"
fi
echo "   ($((SECONDS - t0)) s)"
# what this host needs to reach the network, not part of the check: DNS,
# apt settings (proxy, snapshot dates), local CA certificates (a TLS proxy:
# ca-certificates, once a check installs it, adds them to the bundle) and
# npm's CA setting
cp /etc/resolv.conf "$root/etc/resolv.conf"
for f in /etc/apt/apt.conf.d/99artifact-registry /etc/apt/apt.conf.d/*proxy*; do
	[ -f "$f" ] && cp "$f" "$root/etc/apt/apt.conf.d/"
done
if [ -d /usr/local/share/ca-certificates ]; then
	mkdir -p "$root/usr/local/share/ca-certificates"
	cp -r /usr/local/share/ca-certificates/. "$root/usr/local/share/ca-certificates/"
fi
[ -f /etc/npmrc ] && cp /etc/npmrc "$root/etc/npmrc"
mount --bind /proc "$root/proc"
mount --rbind /sys "$root/sys"; mount --make-rslave "$root/sys"
mount --rbind /dev "$root/dev"; mount --make-rslave "$root/dev"

in_root() { chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 "$@"; }

echo "== apt-get install make (nothing else)"
in_root sh -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq make > /dev/null'
echo "== clone $(git -C "$repo" rev-parse --short HEAD) into the root"
git clone -q "$repo" "$root/root/scorch"

if [ $deb = 1 ]; then
	scripts/deb-check.sh "$root" "$base"
	exit
fi
if [ ${#cmd[@]} -gt 0 ]; then
	in_root sh -c 'cd /root/scorch && "$@"' sh "${cmd[@]}"
	exit
fi
t0=$SECONDS
echo "== make demo"
in_root sh -c 'cd /root/scorch && make demo' > "$root.demo.log" 2>&1 || {
	tail -30 "$root.demo.log"; echo "fresh-check: FAIL make demo (log: $root.demo.log)"; exit 1; }
tail -25 "$root.demo.log"
[ -s "$root/root/scorch/build/demo-flame.html" ] || { echo "fresh-check: FAIL no build/demo-flame.html"; exit 1; }
echo "fresh-check: PASS make demo ($((SECONDS - t0)) s)"
if [ $run_test = 1 ]; then
	t0=$SECONDS
	echo "== make test"
	in_root sh -c 'cd /root/scorch && make test' > "$root.test.log" 2>&1 || true
	tail -40 "$root.test.log"
	last=$(tail -1 "$root.test.log")
	case $last in
	*" 0 failed"*) echo "fresh-check: PASS make test ($((SECONDS - t0)) s): $last" ;;
	*) echo "fresh-check: FAIL make test ($((SECONDS - t0)) s): $last (log: $root.test.log)"; exit 1 ;;
	esac
fi
