#!/bin/bash
# readme.sh: README.md as a new user meets it. Its quick start runs as it
# is written, line by line, from a copy of the checkout's top (build/ and
# tests/ linked in; hotspot is a stand-in that checks what it is given);
# its list of commands names each command of scorch's command table
# (scorch --help) once, and no other; it stays a front door (at most 170
# lines).
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/e2e/lib.sh"
R=$TOP/README.md
# the build the test runs: $SCORCH's directory as build/
ln -s "$(dirname "$SCORCH")" "$W/build"
ln -s "$TOP/tests" "$W/tests"

# ---- the quick start: the first sh block after "## Quick start" ----
awk '/^## Quick start/ { q = 1; next } q && /^## / { exit }
	q && /^```sh$/ { b = 1; next } q && b && /^```$/ { exit } q && b { print }' "$R" > "$W/quick.sh"
n=$(grep -c . "$W/quick.sh")
check "readme: the quick start has its lines ($n)" [ "$n" -ge 4 ]
grep -q 'scorch record' "$W/quick.sh" && grep -q 'scorch report' "$W/quick.sh" &&
	grep -q 'scorch flame' "$W/quick.sh" && grep -q 'scorch hotspot' "$W/quick.sh"
check "readme: the quick start records, reports, draws and opens hotspot" [ $? = 0 ]
# a stand-in hotspot: it reads the file through the parser it is given
printf '#!/bin/sh\necho "hotspot $* with $HOTSPOT_PERFPARSER" > "%s/hotspot.args"\nexec "$HOTSPOT_PERFPARSER" --input "$1" --print-stats\n' "$W" > "$W/fake-hotspot"
chmod +x "$W/fake-hotspot"
i=0
while IFS= read -r line; do
	[ -n "$line" ] || continue
	i=$((i + 1))
	(cd "$W" && HOTSPOT=$W/fake-hotspot bash -c "$line") > "$W/out.$i" 2> "$W/err.$i"
	rc=$?
	check "readme: quick start line $i runs as written (rc $rc): $line" [ $rc = 0 ]
	[ $rc = 0 ] || tail -5 "$W/err.$i"
done < "$W/quick.sh"
check "readme: the recording has samples of the demo program" \
	at_least 100 script_count "$W/perf.data" '^ *demo +[0-9]'
rep=$(grep -l 'parse_input' "$W"/out.* 2> /dev/null | head -1)
check "readme: the report names the demo's functions" [ -n "$rep" ]
check "readme: flame.html is written, with the demo's functions" grep -q 'parse_input' "$W/flame.html"
check "readme: hotspot was given perf.data and scorch-perfparser" \
	grep -q "^hotspot perf.data with .*scorch-perfparser$" "$W/hotspot.args"

# ---- one line per command, as the command table has them ----
cmds=$("$SCORCH" --help | awk '/^commands:/ { c = 1; next } c && NF { print $1 }' | sort)
listed=$(awk '/^## Commands/ { c = 1; next } c && /^## / { exit }
	c && /^- `scorch [a-z][-a-z]*`/ { sub(/^- `scorch /, ""); sub(/`.*/, ""); print }' "$R" | sort)
dups=$(uniq -d <<< "$listed" | tr '\n' ' ')
missing=$(comm -23 <(echo "$cmds") <(echo "$listed" | sort -u) | tr '\n' ' ')
extra=$(comm -13 <(echo "$cmds") <(echo "$listed" | sort -u) | tr '\n' ' ')
check "readme: Commands lists the $(echo $cmds | wc -w) commands of scorch --help once each (missing: ${missing:-none}; not commands: ${extra:-none}; twice: ${dups:-none})" \
	[ -n "$cmds" -a -z "$missing$extra$dups" ]

lines=$(wc -l < "$R")
check "readme: $lines lines (at most 170)" [ "$lines" -le 170 ]
