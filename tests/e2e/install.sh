#!/bin/bash
# install.sh: scorch as an installed tool (mk/install.mk, docs/man,
# completion/). Checks, generically over the commands `scorch --help` lists:
# every command has a man page, each page documents exactly the options its
# --help lists (once), the pages render; `make install DESTDIR=` lays out
# the files and `make uninstall` removes them all; the bash completion
# (called as bash calls it, and typed with Tab in bash and zsh under tmux);
# --version; `scorch list`; `scorch hotspot` with a stand-in hotspot.
# The .deb in a pristine Debian root is scripts/deb-check.sh (slow, not here).
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/e2e/lib.sh"
cd "$TOP" || exit 1
make -s man completion build/scorch-perfparser > "$W/make.log" 2>&1 || { fail "install: make man completion"; cat "$W/make.log"; }

# --- man pages vs --help -------------------------------------------------
cmds=$("$SCORCH" --help | awk '/^commands:/ { c = 1; next } c && NF { print $1 }')
[ -n "$cmds" ] && pass "install: scorch --help lists $(echo $cmds | wc -w) commands" || fail "install: no commands in scorch --help"
help_opts() { # the options a help text names (not -h/--help)
	grep -oP "(?<![\\w'-])--?[A-Za-z][A-Za-z0-9-]*" | grep -vxE -- '-h|--help' | sort -u
}
page_opts() { scripts/man-src.sh opts "$1" | cut -f1 | grep -vxE -- '-h|--help'; }
listed=$(awk '/^# /{ s = $0; next } s == "# COMMANDS" && /^\*[a-z][-a-z0-9]*\*$/ { gsub(/\*/, ""); print }' docs/man/scorch.1.scd)
for c in $cmds; do
	p=docs/man/scorch-$c.1.scd
	if [ ! -f "$p" ]; then
		fail "install: man page source $p for command '$c' is missing"
		continue
	fi
	grep -qx "$c" <<< "$listed" || fail "install: scorch.1 COMMANDS does not list '$c'"
	"$SCORCH" "$c" --help > "$W/help-$c.txt" 2>&1
	help_opts < "$W/help-$c.txt" > "$W/h"
	page_opts "$p" > "$W/p-all"
	sort -u "$W/p-all" > "$W/p"
	dups=$(sort "$W/p-all" | uniq -d | tr '\n' ' ')
	only_help=$(comm -23 "$W/h" "$W/p" | tr '\n' ' ')
	only_page=$(comm -13 "$W/h" "$W/p" | tr '\n' ' ')
	if [ -z "$only_help$only_page$dups" ] && [ -s "$W/h" -o "$c" = hotspot ]; then
		pass "install: scorch-$c(1) documents the $(wc -l < "$W/h") options of scorch $c --help"
	else
		fail "install: docs/man/scorch-$c.1.scd vs scorch $c --help: not in the page: ${only_help:-none}; not in --help: ${only_page:-none}; twice in the page: ${dups:-none}"
	fi
done
for l in $listed; do
	grep -qx "$l" <<< "$cmds" || fail "install: scorch.1 lists '$l', which scorch --help does not"
done
# the top-level options
"$SCORCH" --help > "$W/top.txt"
for o in --version --help; do
	page_opts docs/man/scorch.1.scd | grep -qx -- "$o" || [ "$o" = --help ] ||
		fail "install: scorch(1) does not document $o"
done
if command -v man > /dev/null; then
	bad=0
	for f in build/man/*.1; do
		out=$(MANWIDTH=80 man --warnings -l "$f" 2>&1 > /dev/null)
		[ -n "$out" ] && { bad=1; fail "install: man $f: $out"; }
	done
	[ $bad = 0 ] && pass "install: $(ls build/man/*.1 | wc -l) man pages render without warnings"
else
	echo "SKIP install: man page rendering (no man command)"
fi

# --- --version ------------------------------------------------------------
v=$("$SCORCH" --version)
[ "$v" = "scorch $(scripts/version.sh)" ] && pass "install: --version is '$v' (scripts/version.sh)" ||
	fail "install: --version '$v' vs scripts/version.sh '$(scripts/version.sh)'"
mkdir -p "$W/rel/scripts" && cp scripts/version.sh "$W/rel/scripts/" && echo 1.2.3 > "$W/rel/VERSION"
[ "$("$W/rel/scripts/version.sh")" = 1.2.3 ] && pass "install: a release tarball's VERSION file is the version" ||
	fail "install: version.sh ignores VERSION"

# --- make install / uninstall -----------------------------------------------
check_layout() { # ROOT PREFIX
	local root=$1 pre=$2
	(cd "$root" && find . ! -type d | sed 's|^\./||' | sort) > "$W/got"
	{
		echo "${pre#/}/bin/scorch"
		echo "${pre#/}/libexec/scorch/scorch-perfparser"
		for c in "" $cmds; do echo "${pre#/}/share/man/man1/scorch${c:+-$c}.1"; done
		echo "${pre#/}/share/bash-completion/completions/scorch"
		echo "${pre#/}/share/zsh/site-functions/_scorch"
		for d in README.md docs/*.md; do echo "${pre#/}/share/doc/scorch/$(basename "$d")"; done
	} | sort > "$W/want"
	if diff "$W/want" "$W/got" > "$W/diff"; then
		pass "install: make install PREFIX=$pre lays out $(wc -l < "$W/want") files"
	else
		fail "install: make install PREFIX=$pre layout (< expected, > installed):"; cat "$W/diff"
	fi
}
R=$W/root
if make -s install DESTDIR="$R" PREFIX=/usr > "$W/inst.log" 2>&1; then
	check_layout "$R" /usr
	[ "$(readlink "$R/usr/libexec/scorch/scorch-perfparser")" = ../../bin/scorch ] &&
		pass "install: scorch-perfparser is a relative link to bin/scorch" ||
		fail "install: scorch-perfparser links to '$(readlink "$R/usr/libexec/scorch/scorch-perfparser")'"
	"$R/usr/libexec/scorch/scorch-perfparser" --help 2>&1 | grep -q 'Perf data parser' &&
		pass "install: the installed scorch-perfparser runs as perfparser" ||
		fail "install: the installed scorch-perfparser does not run as perfparser"
	[ "$("$R/usr/bin/scorch" --version)" = "$v" ] && pass "install: installed scorch --version" ||
		fail "install: installed scorch --version"
	if command -v man > /dev/null; then
		MANPATH=$R/usr/share/man man -w scorch-record 2>&1 | grep -q "$R/usr/share/man/man1/scorch-record.1" &&
			pass "install: man finds the installed scorch-record(1)" || fail "install: man -w scorch-record"
	fi
	# scorch hotspot: the installed perfparser, with a stand-in hotspot
	printf '#!/bin/sh\necho "PP=$HOTSPOT_PERFPARSER"\necho "ARGS=$*"\nexec "$HOTSPOT_PERFPARSER" --input "$1" --print-stats\n' > "$W/fake-hotspot"
	chmod +x "$W/fake-hotspot"
	out=$(cd "$W" && HOTSPOT=$W/fake-hotspot "$R/usr/bin/scorch" hotspot "$TOP/tests/data/peer/contentsize.data" 2>&1)
	if grep -qx "PP=$R/usr/libexec/scorch/scorch-perfparser" <<< "$out" &&
		grep -qx "ARGS=$TOP/tests/data/peer/contentsize.data" <<< "$out" && grep -qi 'samples' <<< "$out"; then
		pass "install: scorch hotspot FILE runs hotspot with HOTSPOT_PERFPARSER=the installed perfparser"
	else
		fail "install: scorch hotspot: $out"
	fi
	make -s uninstall DESTDIR="$R" PREFIX=/usr > "$W/uninst.log" 2>&1
	left=$(cd "$R" && find . ! -type d | head -5)
	[ -z "$left" ] && pass "install: make uninstall removes every installed file" ||
		fail "install: left after make uninstall: $left"
	[ ! -e "$R/usr/libexec/scorch" ] && [ ! -e "$R/usr/share/doc/scorch" ] &&
		pass "install: make uninstall removes scorch's own directories" || fail "install: scorch directories left"
else
	fail "install: make install DESTDIR"; tail "$W/inst.log"
fi
make -s install DESTDIR="$W/r2" > "$W/inst2.log" 2>&1 && check_layout "$W/r2" /usr/local ||
	{ fail "install: make install (default PREFIX)"; tail "$W/inst2.log"; }
out=$(cd "$W" && HOTSPOT=$W/fake-hotspot "$SCORCH" hotspot 2>&1)
grep -qx "PP=$(realpath "$TOP/build")/scorch-perfparser" <<< "$out" &&
	pass "install: scorch hotspot from build/ uses build/scorch-perfparser" || fail "install: build hotspot: $out"

# --- scorch list ------------------------------------------------------------
raw=$("$SCORCH" list --raw-dump)
bad=""
for e in $("$SCORCH" list | awk '/\[Software event\]/ { print $1 }'); do
	grep -qw -- "$e" <<< "$raw" || bad="$bad $e(not in --raw-dump)"
	"$SCORCH" record -q -e "$e" -o "$W/ev.data" -- true > /dev/null 2>&1 || bad="$bad $e"
done
[ -z "$bad" ] && pass "install: every software event scorch list names records" || fail "install: list:$bad"
if [ -r /sys/kernel/tracing/events/sched/sched_switch/id ]; then
	grep -qw 'sched:sched_switch' <<< "$raw" && pass "install: scorch list names tracepoints" ||
		fail "install: sched:sched_switch not in scorch list"
else
	echo "SKIP install: tracepoints in scorch list (tracefs not readable)"
fi

# --- bash completion, called as bash calls it ------------------------------
cat > "$W/comp.sh" << 'EOS'
source build/completion/scorch
t() { # LINE EXPECTED: the candidates bash gets for LINE (cursor at the end)
	COMP_LINE=$1 COMP_POINT=${#1}
	eval "COMP_WORDS=($(printf '%s' "$1" | sed 's/\([:=]\)/ \1 /g'))"
	[[ $1 == *" " || $1 == *[:=] ]] && COMP_WORDS+=("")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMPREPLY=()
	_scorch
	local got; got=$(printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' ')
	if [[ $got == "$2 " ]]; then echo "PASS install: bash completion [$1] -> $2"
	else echo "FAIL install: bash completion [$1] -> '$got', expected '$2'"; fi
}
t "scorch rec" "record"
t "scorch report --so" "--sort"
t "scorch export -f " "folded pprof speedscope"
t "scorch export --format=sp" "speedscope"
t "scorch record --call-graph d" "dwarf"
t "scorch record --io " "aio sync uring"
t "scorch record -e cpu-c" "cpu-clock cpu-cycles"
t "scorch record -e page-faults,task-c" "page-faults,task-clock"
t "scorch report -i docs/man/scorch-rep" "docs/man/scorch-report.1.scd"
t "scorch --vers" "--version"
t "scorch record -- scorch-perfpar" "scorch-perfparser"
EOS
if [ -r /sys/kernel/tracing/events/sched/sched_switch/id ]; then
	echo 't "scorch record -e sched:sched_swi" "sched_switch"' >> "$W/comp.sh"
fi
PATH=$TOP/build:/usr/bin:/bin bash "$W/comp.sh"

# --- Tab in an interactive bash and zsh (tmux) -----------------------------
tab_test() { # NAME SHELL-COMMAND: types lines with Tab, checks the result
	local name=$1 sock=$W/tmux-$1
	tmux -S "$sock" new-session -d -x 150 -y 40 "$2"
	wait_for() { # REGEX: poll the screen (no time assertion: up to 60 s)
		for _ in $(seq 120); do
			tmux -S "$sock" capture-pane -p | grep -qE -- "$1" && return 0
			sleep 0.5
		done
		return 1
	}
	if ! wait_for 'READY>'; then
		fail "install: $name did not start"; tmux -S "$sock" kill-server; return
	fi
	tmux -S "$sock" send-keys 'scorch rec' Tab
	wait_for 'READY> scorch record *$' && pass "install: $name: scorch rec<Tab> -> scorch record" ||
		fail "install: $name: scorch rec<Tab>: $(tmux -S "$sock" capture-pane -p | grep READY | tail -1)"
	tmux -S "$sock" send-keys C-u 'scorch report --so' Tab
	wait_for 'READY> scorch report --sort=? *$' && pass "install: $name: scorch report --so<Tab> -> --sort" ||
		fail "install: $name: scorch report --so<Tab>: $(tmux -S "$sock" capture-pane -p | grep READY | tail -1)"
	tmux -S "$sock" kill-server
}
if command -v tmux > /dev/null; then
	printf 'PS1="READY> "\nPATH=%s/build:$PATH\nsource %s/build/completion/scorch\n' "$TOP" "$TOP" > "$W/bashrc"
	tab_test bash "bash --noprofile --rcfile $W/bashrc -i"
	if command -v zsh > /dev/null; then
		mkdir -p "$W/zdot"
		printf 'fpath=(%s/build/completion $fpath)\nPATH=%s/build:$PATH\nautoload -U compinit\ncompinit -u -d %s/zcompdump\nPS1="READY> "\n' \
			"$TOP" "$TOP" "$W/zdot" > "$W/zdot/.zshrc"
		tab_test zsh "env ZDOTDIR=$W/zdot zsh -i"
	else
		echo "SKIP install: zsh completion (no zsh)"
	fi
else
	echo "SKIP install: Tab completion in tmux (no tmux)"
fi
exit 0
