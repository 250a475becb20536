#!/bin/sh
# man-src.sh: the man page sources (docs/man/*.scd) with their includes
# resolved, and the options they document, for the build and the tests.
#   scripts/man-src.sh page FILE.scd   the page with "%include X" lines
#                                      replaced by docs/man/include/X
#   scripts/man-src.sh opts FILE.scd   one line per option the page documents:
#                                      NAME<TAB>ARG<TAB>first line of its text
#                                      (ARG: "" none, "[=N]" optional, else the
#                                      value, "*" and "_" markup removed)
# An option entry is a line starting with "*-" (scdoc bold): one or more
# comma-separated "*-x*[ ARG]" items, the tab-indented text below it.
set -e
dir=$(dirname "$2")
page() {
	awk -v inc="$dir/include" '
		/^%include / { f = inc "/" $2; while ((getline l < f) > 0) print l; close(f); next }
		{ print }' "$1"
}
case "$1" in
page) page "$2" ;;
opts)
	page "$2" | awk '
		# scdoc markup out: "*", "\\", "_" at a word edge (not in FOO_BAR)
		function strip(s,   i, c, o, l, r) {
			gsub(/[*\\]/, "", s)
			o = ""
			for (i = 1; i <= length(s); i++) {
				c = substr(s, i, 1)
				l = substr(s, i - 1, 1); r = substr(s, i + 1, 1)
				if (c == "_" && (l !~ /[A-Za-z0-9]/ || r !~ /[A-Za-z0-9]/)) continue
				o = o c
			}
			return o
		}
		function flush(   i, a) {
			if (!n) return
			a = ""
			for (i = n; i >= 1; i--) if (args[i] != "") { a = args[i]; break }
			sub(/\. .*/, "", desc); sub(/\.$/, "", desc)
			if (length(desc) > 60) { sub(/ \(.*/, "", desc); sub(/;.*/, "", desc) }
			for (i = 1; i <= n; i++) print names[i] "\t" (args[i] != "" ? args[i] : a) "\t" strip(desc)
			n = 0
		}
		/^\t/ && n { d = $0; sub(/^\t/, "", d); desc = desc (desc == "" ? "" : " ") d; next }
		{ flush() }
		/^\*-/ {
			s = $0
			desc = ""
			while (match(s, /^\*-[-A-Za-z0-9]*\*/)) {
				names[++n] = substr(s, 2, RLENGTH - 2)
				s = substr(s, RLENGTH + 1)
				p = index(s, ", *-")
				if (p) { arg = substr(s, 1, p - 1); s = substr(s, p + 2) }
				else { arg = s; s = "" }
				sub(/^ +/, "", arg)
				args[n] = strip(arg)
			}
		}
		END { flush() }'
	;;
*) echo "usage: man-src.sh page|opts FILE.scd" >&2; exit 2 ;;
esac
