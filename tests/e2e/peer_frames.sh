#!/bin/bash
# peer_frames.sh: frames of programs nobody here wrote, named as perf 6.1
# names them, each on a recording made here:
#   node      node --perf-basic-prof (V8): every symbol of `scorch script`
#             equals perf script's, C++ names demangled alike (V8's own
#             names include ones __cxa_demangle cannot parse whole)
#   go        a Go program built here (sort.Ints inlined into a method),
#             --call-graph dwarf: the inlined call is "sort.Ints (inlined)"
#             then its caller, never the caller twice; -g: no frame twice
#   cxx       the C++ workload, --call-graph dwarf at a high rate: where
#             perf takes a vtable's address (data) as a return address in
#             the exit handlers and stops, scorch goes on through exit to
#             _start, and libdwfl unwinds every sample as scorch does (the
#             named kind perf-vtable-return of script_parity.py)
#   system    perf record -a over short-lived processes: their samples'
#             frames as perf's, `_exit` in libc included (sampled after the
#             process's EXIT, while the kernel still runs the dying task);
#             `scorch report --sort comm` as perf report's (the idle task
#             is swapper)
# Each section prints how many lines differ from perf script and why.
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/e2e/lib.sh"
unset DEBUGINFOD_URLS # no network lookups in tests
if ! command -v perf >/dev/null || ! perf record -q -e cpu-clock -o "$W/probe.data" true 2>/dev/null; then
	skip peer_frames "perf record not usable"
	exit 0
fi

# The symbol column of each line of `script` output: a frame line's name
# (between the address and the "(dso)"), a sample line as it is.
sym_column() { # FILE
	sed -E 's/^\t *[0-9a-f]+ (.*) \([^()]*\)$/\1/; s/\+0x[0-9a-f]+$//' "$1"
}

# Lines of perf's and scorch's symbol columns that differ, as
# "perf<TAB>scorch", into OUT; prints their count.
sym_diff() { # PERF SCORCH OUT
	paste <(sym_column "$1") <(sym_column "$2") | awk -F'\t' '$1 != $2' > "$3"
	wc -l < "$3"
}

# --- node (V8) ---
node_section() {
	local js=$TOP/tests/workloads/v8_strings.js node=$(command -v node)
	if [ -z "$node" ]; then
		skip node_names "node not installed"
		return
	fi
	node=$(readlink -f "$node")
	if ! (cd "$W" && perf record -q -e cpu-clock -F 2000 -g -o "$W/node.data" -- "$node" --perf-basic-prof "$js") > /dev/null 2> "$W/node.err"; then
		fail node_record "$(tail -1 "$W/node.err")"
		return
	fi
	perf script -i "$W/node.data" > "$W/node.perf" 2> /dev/null
	"$SCORCH" script -i "$W/node.data" > "$W/node.scorch" 2> "$W/node.serr" || { fail node_script "$(tail -1 "$W/node.serr")"; return; }
	check node_same_lines [ "$(wc -l < "$W/node.perf")" = "$(wc -l < "$W/node.scorch")" ]
	local n
	n=$(sym_diff "$W/node.perf" "$W/node.scorch" "$W/node.diff")
	# the one named exception: an address inside a sized function that an
	# unsized label (STT_NOTYPE, e.g. V8's construct_stub_create_deopt_addr)
	# also covers; perf's answer depends on the shape of its rbtree, scorch
	# names the label (the nearer start). Every other line must be equal.
	local labels=0 other=0 p s
	readelf -sW "$node" | awk '$4 == "NOTYPE" {print $8}' | sort -u > "$W/node.labels"
	while IFS=$'\t' read -r p s; do
		if grep -qxF -- "$s" "$W/node.labels"; then
			labels=$((labels + 1))
		else
			other=$((other + 1))
			[ $other -le 5 ] && echo "node: perf '$p' scorch '$s'"
		fi
	done < "$W/node.diff"
	echo "node: $n of $(wc -l < "$W/node.perf") lines differ from perf script in the symbol column: $labels a label inside a sized function"
	check node_symbols_as_perf [ "$other" = 0 ]
	# the names __cxa_demangle cannot parse whole are there, demangled
	if grep -q 'StringShape::DispatchToSpecificTypeWithoutCast<' "$W/node.perf"; then
		check node_v8_name_demangled grep -q 'StringShape::DispatchToSpecificTypeWithoutCast<' "$W/node.scorch"
	fi
	check node_no_mangled_name_perf_demangles [ "$(grep -c $'^\t.* _Z' "$W/node.scorch")" = "$(grep -c $'^\t.* _Z' "$W/node.perf")" ]
}

# --- system-wide, short-lived processes ---
# One line per sample of comm true: its header, then each frame's
# "symbol (dso)", joined by '|'.
true_blocks() { # FILE
	awk 'BEGIN { RS = ""; FS = "\n" }
		$1 ~ /^true / { out = $1
			for (i = 2; i <= NF; i++) { l = $i; sub(/^\t *[0-9a-f]+ /, "", l); sub(/\+0x[0-9a-f]+ \(/, " (", l); out = out "|" l }
			print out }' "$1"
}

system_section() {
	if ! perf record -q -a -g -F 10000 -o "$W/sys.data" -- sh -c 'for i in $(seq 200); do /bin/true; done' > /dev/null 2> "$W/sys.err"; then
		fail system_record "$(tail -1 "$W/sys.err")"
		return
	fi
	perf script -i "$W/sys.data" > "$W/sys.perf" 2> /dev/null
	"$SCORCH" script -i "$W/sys.data" > "$W/sys.scorch" 2> "$W/sys.serr" || { fail system_script "$(tail -1 "$W/sys.serr")"; return; }
	true_blocks "$W/sys.perf" > "$W/sys.pb"
	true_blocks "$W/sys.scorch" > "$W/sys.sb"
	check system_true_samples_as_perf cmp <(cut -d'|' -f1 "$W/sys.pb") <(cut -d'|' -f1 "$W/sys.sb")
	# frame by frame; the one named exception: the stripped entry point,
	# which scorch names _start where perf prints [unknown]
	local counts
	counts=$(paste -d'\n' "$W/sys.pb" "$W/sys.sb" | awk -F'|' '
		NR % 2 { n = split($0, p, "|"); next }
		{ m = split($0, s, "|")
		  if (m != n) { other++; if (other <= 5) print "frames: perf " n - 1 ", scorch " m - 1 ": " s[1] > "/dev/stderr"; next }
		  for (i = 2; i <= n; i++) {
			if (p[i] ~ /^_exit \(.*libc/) pexit++
			if (s[i] ~ /^_exit \(.*libc/) sexit++
			if (p[i] == s[i]) continue
			ps = p[i]; sub(/^\[unknown\] /, "_start ", ps)
			if (ps == s[i]) start++
			else { other++; if (other <= 5) print "perf \"" p[i] "\" scorch \"" s[i] "\"" > "/dev/stderr" }
		  } }
		END { print start + 0, other + 0, pexit + 0, sexit + 0 }')
	local start other pexit sexit
	read -r start other pexit sexit <<< "$counts"
	echo "system: $(wc -l < "$W/sys.pb") samples of the workload, frames differing from perf script: $start the stripped entry point named _start, $other other; _exit in libc: perf $pexit, scorch $sexit"
	check system_true_frames_as_perf [ "$other" = 0 ]
	check system_exit_named_as_perf [ "$pexit" = "$sexit" ]
	# report --sort comm: the whole table as perf report's
	perf report -i "$W/sys.data" --sort comm --stdio -g none 2> /dev/null | grep -v '^#' | grep -v '^$' |
		awk '{print $1, $2, $3}' | sort > "$W/sys.pcomm"
	"$SCORCH" report -i "$W/sys.data" --sort comm --top 0 --tree 0 2> /dev/null | sed -n '/^# Children/,/^$/p' |
		grep -v '^#' | grep -v '^$' | awk '{print $1, $2, $3}' | sort > "$W/sys.scomm"
	echo "system: report --sort comm: $(wc -l < "$W/sys.pcomm") commands, idle task: $(grep -c ' swapper$' "$W/sys.scomm") swapper, $(grep -c ' :0$' "$W/sys.scomm") :0"
	check system_report_comm_as_perf diff "$W/sys.pcomm" "$W/sys.scomm"
}

# --- Go: an inlined standard library function ---
go_section() {
	if ! command -v go > /dev/null; then
		skip go_inline "go not installed (golang-go)"
		return
	fi
	cp -r "$TOP/tests/workloads/go_inline" "$W/gosrc"
	if ! (cd "$W/gosrc" && HOME=$W GOCACHE=$W/gocache GOPATH=$W/gopath GOFLAGS= GOPROXY=off go build -o "$W/goinline" .) > "$W/go.err" 2>&1; then
		fail go_build "$(tail -1 "$W/go.err")"
		return
	fi
	# the DWARF this is about: the unit's DW_AT_inline subprogram sort.Ints
	check go_dwarf_has_inline_sort_ints sh -c "objdump --dwarf=info '$W/goinline' 2> /dev/null | grep -A1 'DW_AT_name *: sort.Ints\$' | grep -q DW_AT_inline"
	local mode
	for mode in dwarf fp; do
		local cg=(--call-graph dwarf)
		[ $mode = fp ] && cg=(-g)
		if ! perf record -q -e cpu-clock "${cg[@]}" -o "$W/go-$mode.data" -- "$W/goinline" > /dev/null 2> "$W/go.rec"; then
			fail go_record_$mode "$(tail -1 "$W/go.rec")"
			continue
		fi
		"$SCORCH" script -i "$W/go-$mode.data" > "$W/go-$mode.scorch" 2> /dev/null
		# a frame printed twice in a row under the same address and name
		# (recursion from one call site, as pdqsort's, excepted: sort.*)
		local twice
		twice=$(awk '/^\t/ && $0 == prev && $2 ~ /^main\./ {n++} {prev = $0} END {print n + 0}' "$W/go-$mode.scorch")
		check go_${mode}_no_caller_twice [ "$twice" = 0 ]
		[ $mode = fp ] && continue
		# sort.Sort called from churn: through the inlined sort.Ints
		local counts inl direct
		counts=$(awk '/^\t/ && p1 ~ / sort\.Sort\+/ && $2 ~ /^main\.\(\*T\)\.churn\+/ {direct++}
			/^\t/ && p2 ~ / sort\.Sort\+/ && p1 ~ / sort\.Ints\+0x[0-9a-f]+ \(inlined\)$/ && $2 ~ /^main\.\(\*T\)\.churn\+/ {inl++}
			{p2 = p1; p1 = $0} END {print inl + 0, direct + 0}' "$W/go-$mode.scorch")
		read -r inl direct <<< "$counts"
		echo "go: sort.Sort called from churn: $inl through 'sort.Ints (inlined)', $direct without it"
		check go_dwarf_sort_ints_inlined [ "$inl" -gt 0 -a "$direct" = 0 ]
	done
}

# --- C++: the exit path, DWARF ---
cxx_section() {
	local wl=$TOP/build/workloads/cxx diff=$TOP/build/unwind-diff
	[ -x "$wl" ] && [ -x "$diff" ] || make -s -C "$TOP" build/unwind-diff workloads > /dev/null
	if ! perf record -q -e cpu-clock -F 20000 --call-graph dwarf,8192 -o "$W/cxx.data" -- "$wl" > /dev/null 2> "$W/cxx.err"; then
		fail cxx_record "$(tail -1 "$W/cxx.err")"
		return
	fi
	perf script -i "$W/cxx.data" > "$W/cxx.perf" 2> /dev/null
	"$SCORCH" script -i "$W/cxx.data" > "$W/cxx.scorch" 2> /dev/null
	# the samples where perf stops at a vtable: scorch's chain goes on
	# through exit to _start (their call chains are script_parity.py's
	# perf-vtable-return kind)
	local counts
	counts=$(python3 - "$W/cxx.perf" "$W/cxx.scorch" <<'PY'
import re, sys
a, b = (open(f, errors='replace').read().split('\n\n') for f in sys.argv[1:3])
if len(a) != len(b):
    print(-1, -1)
    sys.exit()
vt = re.compile(r'^\s+[0-9a-f]+ vtable for ', re.M)
n = good = 0
for x, y in zip(a, b):
    if vt.search(x):
        n += 1
        ys = y.strip('\n').split('\n')
        if re.search(r' _start\+0x[0-9a-f]+ \(', ys[-1]) and any('exit' in l for l in ys) and not vt.search(y):
            good += 1
print(n, good)
PY
)
	local n good
	read -r n good <<< "$counts"
	echo "cxx: $n samples where perf's chain stops at a vtable; scorch's goes through exit to _start in $good"
	check cxx_same_samples [ "$n" != -1 ]
	check cxx_exit_path_to_start [ "$n" = "$good" ]
	# the vtable perf stops at is data (nm: d/D/V), never code
	if [ "$n" -gt 0 ]; then
		check cxx_vtable_is_data sh -c "nm -C '$wl' | grep -q '^[0-9a-f]* [dDrRV] vtable for ' && ! nm -C '$wl' | grep -q '^[0-9a-f]* [tTwW] vtable for '"
	fi
	# libdwfl, from the same registers and stack, never disagrees with
	# scorch nor goes further: on the exit path too
	"$diff" -i "$W/cxx.data" > "$W/cxx.ud" 2>&1
	echo "cxx: unwind-diff: $(tr '\n' ' ' < "$W/cxx.ud" | cut -c1-200)"
	check cxx_libdwfl_agrees [ "$(awk '$1 == "disagree:" {print $2}' "$W/cxx.ud")" = 0 -a "$(awk '$1 == "libdwfl_further:" {print $2}' "$W/cxx.ud")" = 0 ]
}

[ -n "${PEER_FRAMES_ONLY:-}" ] && [ "$PEER_FRAMES_ONLY" != node ] || node_section
[ -n "${PEER_FRAMES_ONLY:-}" ] && [ "$PEER_FRAMES_ONLY" != cxx ] || cxx_section
[ -n "${PEER_FRAMES_ONLY:-}" ] && [ "$PEER_FRAMES_ONLY" != go ] || go_section
[ -n "${PEER_FRAMES_ONLY:-}" ] && [ "$PEER_FRAMES_ONLY" != system ] || system_section
