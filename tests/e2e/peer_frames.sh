#!/bin/bash
# peer_frames.sh: frames of programs nobody here wrote, named as perf 6.1
# names them, each on a recording made here:
#   node      node --perf-basic-prof (V8): every symbol of `scorch script`
#             equals perf script's, C++ names demangled alike (V8's own
#             names include ones __cxa_demangle cannot parse whole)
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

node_section
