#!/bin/bash
# deb-check.sh: the Debian package, from source to purge, in pristine
# Debian 12 roots. Run by `scripts/fresh-check.sh --deb` (which makes the
# build root: minbase + make, this repository cloned to /root/scorch,
# /proc /sys /dev mounted); slow (minutes), so not part of make test.
#
#   build root:   apt-get build-dep ./ (debian/control's Build-Depends, so a
#                 missing one fails), dpkg-buildpackage -us -uc -b, lintian
#   install root: a second pristine root from the same base tarball with
#                 what a user has (man-db, tmux, bash-completion, a login
#                 user); apt-get install ./scorch_*.deb must pull only
#                 libraries; man scorch-record; Tab in bash under tmux for
#                 `scorch rec` and `scorch report --so`; scorch record --
#                 true and scorch report; apt-get purge + autoremove must
#                 leave the package list as before and no scorch file.
# Usage: scripts/deb-check.sh BUILD_ROOT BASE_TGZ
set -u
broot=$1 base=$2
iroot=$broot-install
nfail=0
pass() { echo "deb-check: PASS $*"; }
fail() { echo "deb-check: FAIL $*"; nfail=$((nfail + 1)); }
in_root() { # ROOT CMD...
	local r=$1; shift
	chroot "$r" /usr/bin/env -i HOME=/root TERM=xterm PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 "$@"
}
apt_q() { # ROOT PACKAGES...: install quietly
	local r=$1; shift
	in_root "$r" sh -c 'DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" > /dev/null' sh "$@"
}

# --- build ------------------------------------------------------------------
t0=$SECONDS
echo "== build root: apt-get build-dep ./ ; dpkg-buildpackage -us -uc -b"
if ! in_root "$broot" sh -c 'cd /root/scorch && DEBIAN_FRONTEND=noninteractive apt-get build-dep -y -qq ./ > /dev/null &&
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq lintian > /dev/null' > "$broot.deb-deps.log" 2>&1; then
	tail -20 "$broot.deb-deps.log"; fail "apt-get build-dep ./"; exit 1
fi
if ! in_root "$broot" sh -c 'cd /root/scorch && dpkg-buildpackage -us -uc -b' > "$broot.deb-build.log" 2>&1; then
	tail -30 "$broot.deb-build.log"; fail "dpkg-buildpackage (log: $broot.deb-build.log)"; exit 1
fi
deb=$(ls "$broot"/root/scorch_*.deb 2> /dev/null | head -1)
[ -n "$deb" ] || { fail "no scorch_*.deb"; exit 1; }
pass "dpkg-buildpackage -us -uc -b: $(basename "$deb") ($((SECONDS - t0)) s)"
lint=$(in_root "$broot" lintian --fail-on error "/root/$(basename "$deb")" 2>&1)
rc=$?
lint=$(grep -v 'running with root privileges' <<< "$lint")
[ -n "$lint" ] && echo "$lint" | sed 's/^/   lintian: /'
if [ $rc = 0 ]; then
	pass "lintian $(basename "$deb"): no errors ($(grep -c '^W:' <<< "$lint") warnings)"
else
	fail "lintian reports errors"
fi

# --- install root -------------------------------------------------------------
unmount_i() {
	for m in dev/pts dev sys proc; do
		mountpoint -q "$iroot/$m" 2> /dev/null && umount -R "$iroot/$m" 2> /dev/null || true
	done
}
trap 'in_root "$iroot" tmux kill-server > /dev/null 2>&1; unmount_i; rm -rf --one-file-system "$iroot"' EXIT
unmount_i
rm -rf --one-file-system "$iroot"
mkdir -p "$iroot"
tar -xzf "$base" -C "$iroot"
cp /etc/resolv.conf "$iroot/etc/resolv.conf"
for f in /etc/apt/apt.conf.d/99artifact-registry /etc/apt/apt.conf.d/*proxy*; do
	[ -f "$f" ] && cp "$f" "$iroot/etc/apt/apt.conf.d/"
done
mount --bind /proc "$iroot/proc"
mount --rbind /sys "$iroot/sys"; mount --make-rslave "$iroot/sys"
mount --rbind /dev "$iroot/dev"; mount --make-rslave "$iroot/dev"
echo "== install root: a user's environment (man-db tmux bash-completion, user 'tester')"
in_root "$iroot" sh -c 'apt-get update -qq' > /dev/null 2>&1
apt_q "$iroot" man-db tmux bash-completion || { fail "install man-db tmux bash-completion"; exit 1; }
in_root "$iroot" useradd -m -s /bin/bash tester
in_root "$iroot" dpkg-query -W -f '${Package}\n' | sort > "$iroot.before"
cp "$deb" "$iroot/root/"
echo "== apt-get install ./$(basename "$deb")"
if in_root "$iroot" sh -c 'cd /root && DEBIAN_FRONTEND=noninteractive apt-get install -y ./scorch_*.deb' > "$iroot.install.log" 2>&1; then
	in_root "$iroot" dpkg-query -W -f '${Package}\n' | sort > "$iroot.after"
	new=$(comm -13 "$iroot.before" "$iroot.after" | tr '\n' ' ')
	notlib=$(comm -13 "$iroot.before" "$iroot.after" | grep -vE '^(lib|scorch$)' | tr '\n' ' ')
	if [ -z "$notlib" ]; then
		pass "apt-get install ./scorch_*.deb pulled only libraries: $new"
	else
		fail "apt-get install pulled non-library packages: $notlib (all new: $new)"
	fi
else
	tail -20 "$iroot.install.log"; fail "apt-get install ./scorch_*.deb"; exit 1
fi

# as the user (root's man would also leave a formatted copy in /var/cache/man)
page=$(in_root "$iroot" su - tester -c 'MANWIDTH=80 man scorch-record 2>&1')
if grep -q 'scorch-record - record a profile into perf.data' <<< "$page" && grep -q -- '--call-graph' <<< "$page"; then
	pass "man scorch-record shows the page"
	echo "$page" | sed -n '1,8p' | sed 's/^/   | /'
else
	fail "man scorch-record: $(echo "$page" | head -3)"
fi

out=$(in_root "$iroot" sh -c 'cd /tmp && scorch record -- true && scorch report' 2>&1)
if grep -q '^# Samples: ' <<< "$out" && grep -q 'Children' <<< "$out"; then
	pass "scorch record -- true; scorch report"
	echo "$out" | head -9 | sed 's/^/   | /'
else
	fail "scorch record/report: $out"
fi
v=$(in_root "$iroot" scorch --version)
pp=$(in_root "$iroot" /usr/libexec/scorch/scorch-perfparser --help 2>&1 | head -2 | tail -1)
[ -n "$v" ] && grep -q 'Perf data parser' <<< "$pp" && pass "$v; /usr/libexec/scorch/scorch-perfparser runs" ||
	fail "scorch --version '$v', perfparser: $pp"

# Tab in an interactive bash of a user (its ~/.bashrc from /etc/skel loads
# bash-completion, which loads /usr/share/bash-completion/completions/scorch)
tm() { in_root "$iroot" tmux "$@"; }
screen() { tm capture-pane -p -t t 2> /dev/null; }
wait_for() { # REGEX: poll the screen, up to 60 s (waiting, not a timing check)
	for _ in $(seq 120); do
		screen | grep -qE -- "$1" && return 0
		sleep 0.5
	done
	return 1
}
tm new-session -d -s t -x 150 -y 40 "su - tester"
if wait_for 'tester@.*\$ *$'; then
	tm send-keys -t t 'scorch rec' Tab
	if wait_for '\$ scorch record *$'; then pass "bash in tmux: scorch rec<Tab> -> scorch record"
	else fail "bash in tmux: scorch rec<Tab>: $(screen | grep '\$' | tail -1)"; fi
	tm send-keys -t t C-u 'scorch report --so' Tab
	if wait_for '\$ scorch report --sort *$'; then pass "bash in tmux: scorch report --so<Tab> -> scorch report --sort"
	else fail "bash in tmux: scorch report --so<Tab>: $(screen | grep '\$' | tail -1)"; fi
	screen | grep -v '^$' | tail -3 | sed 's/^/   | /'
else
	fail "no bash prompt in tmux: $(screen | tail -3)"
fi
tm kill-server > /dev/null 2>&1

# --- remove ---------------------------------------------------------------------
in_root "$iroot" dpkg -L scorch > "$iroot.files"
if in_root "$iroot" sh -c 'DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq scorch > /dev/null &&
		DEBIAN_FRONTEND=noninteractive apt-get autoremove --purge -y -qq > /dev/null'; then
	in_root "$iroot" dpkg-query -W -f '${Package}\n' | sort > "$iroot.removed"
	left=""
	while read -r f; do
		[ -d "$iroot$f" ] && [ ! -L "$iroot$f" ] && continue # shared directories (/usr/share/man/man1, ...)
		[ -e "$iroot$f" ] || [ -L "$iroot$f" ] && left="$left $f"
	done < "$iroot.files"
	for d in /usr/libexec/scorch /usr/share/doc/scorch; do
		[ -e "$iroot$d" ] && left="$left $d"
	done
	stray=$(cd "$iroot" && find . -xdev \( -path ./proc -o -path ./sys -o -path ./dev -o -path ./root -o -path ./tmp \) -prune \
		-o -name '*scorch*' -print | head -5)
	if cmp -s "$iroot.before" "$iroot.removed" && [ -z "$left$stray" ]; then
		pass "apt-get purge scorch + autoremove: the package list as before, no scorch file left ($(wc -l < "$iroot.files") paths checked)"
	else
		fail "after purge: packages $(comm -3 "$iroot.before" "$iroot.removed" | tr '\n' ' '); left:$left $stray"
	fi
else
	fail "apt-get purge scorch"
fi
echo "deb-check: $nfail failed"
[ $nfail = 0 ]
