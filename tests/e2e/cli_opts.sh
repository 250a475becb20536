#!/bin/bash
# cli_opts.sh: the one option parser every command uses (src/cli/opts.c):
# "--opt=value", "--opt value", "-xvalue" and a unique prefix of a long name
# give the same output; clustered short flags; an unknown option is one
# line with the command's prefix, then the usage (only the line for record,
# top, stats, header, list), exit status 2; a missing
# value, an ambiguous prefix and a value given to a flag are one line and 2.
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/e2e/lib.sh"
F=$TOP/tests/data/peer/vector_static_gcc/perf.data

# same NAME "ARGS A" "ARGS B": both succeed with the same stdout
same() {
	local name=$1 a=$2 b=$3
	# shellcheck disable=SC2086
	"$SCORCH" $a > "$W/a" 2> "$W/a.err" < /dev/null || { fail "cli_opts: $name: '$a' failed: $(head -1 "$W/a.err")"; return; }
	# shellcheck disable=SC2086
	"$SCORCH" $b > "$W/b" 2> "$W/b.err" < /dev/null || { fail "cli_opts: $name: '$b' failed: $(head -1 "$W/b.err")"; return; }
	if [ -s "$W/a" ] && cmp -s "$W/a" "$W/b"; then
		pass "cli_opts: $name: same output both ways"
	else
		fail "cli_opts: $name: '$a' and '$b' differ (or print nothing)"
	fi
}
same "report --top=N" "report -i $F --top 5 --sort sym" "report --input=$F --top=5 --sort=sym"
same "report prefix" "report -i $F --percent-limit 2 -n" "report -i $F --perc 2 --show-nr"
same "report -sKEYS -wN" "report -i $F -s dso,sym -w 100" "report -i$F -sdso,sym -w100"
same "report -g VALUE" "report -i $F -g caller,address" "report -i $F --call-graph=caller,address"
same "report -gVALUE" "report -i $F -gcallee,srcline -n" "report -i $F --call-graph callee,srcline -n"
same "script --max-frames=N" "script -i $F --max-frames 3" "script --input=$F --max-frames=3"
same "script -j" "script -i $F -j 1" "script -i $F --jobs=1"
same "export -ffolded" "export -i $F -f folded --no-comm" "export -i $F -ffolded --no-c"
same "export --format=" "export -i $F --format speedscope" "export -i $F --format=speedscope"
same "flame --width=" "flame -i $F -o - --svg --width 800 --title T" "flame -i $F -o- --svg --width=800 --title=T"
same "diff -f csv" "diff $F $F -f csv" "diff $F --format=csv $F"
same "flame --diff" "flame --diff $F $F -o - --svg" "flame --diff=$F $F -o - --svg"
same "stats --input=" "stats -i $F" "stats --input=$F"

# err NAME WANT-LINE USAGE(0/1) ARGS...: exit 2, stderr's first line, then
# the usage or nothing else, nothing on stdout
err() {
	local name=$1 want=$2 usage=$3 rc
	shift 3
	"$SCORCH" "$@" > "$W/out" 2> "$W/err" < /dev/null
	rc=$?
	local first rest
	first=$(head -1 "$W/err")
	rest=$(tail -n +2 "$W/err" | head -1)
	if [ $rc != 2 ] || [ -s "$W/out" ] || [ "$first" != "$want" ]; then
		fail "cli_opts: $name: exit $rc, stderr '$first' (want 2, '$want')"
	elif [ "$usage" = 1 ] && [ "${rest#usage: }" = "$rest" ]; then
		fail "cli_opts: $name: no usage after the error line ('$rest')"
	elif [ "$usage" = 0 ] && [ -n "$rest" ]; then
		fail "cli_opts: $name: more than one line on stderr ('$rest')"
	else
		pass "cli_opts: $name: exit 2, '$want'"
	fi
}
for c in report flame export diff; do
	err "$c unknown" "scorch: $c: unknown option '--bogus'" 1 $c --bogus
done
err "script unknown" "scorch script: unknown option '--bogus'" 1 script --bogus
# the terse commands: one line (record's contract, tests/e2e/record_faults.sh)
for c in stats header list record top; do
	err "$c unknown" "scorch $c: unknown option '--bogus'" 0 $c --bogus
done
err "record unknown short" "scorch record: unknown option '-Q'" 0 record -Q -- true
err "report operand" "scorch: report: unknown option 'extra'" 1 report -i "$F" extra
err "report missing value" "scorch: report: option '--pid' needs a value" 0 report -i "$F" --pid
err "record missing value" "scorch record: option '-o' needs a value" 0 record -o
err "report ambiguous" "scorch: report: option '--t' is ambiguous" 1 report -i "$F" --t 5
err "report flag with a value" "scorch: report: unknown option '--no-children=1'" 1 report -i "$F" --no-children=1
err "flame --diff one file" "scorch: flame: --diff needs two files: --diff BASE NEW" 0 flame --diff "$F"
err "diff bad --format" "scorch: diff: unknown format 'xml' (text, csv)" 0 diff "$F" "$F" --format=xml
err "top bad -F" "scorch top: -F: bad frequency 'x'" 0 top -F x
err "record bad --io" "scorch record: --io: unknown writer 'x' (uring, aio, sync)" 0 record --io=x -- true

# help on stdout, exit 0, for every command
for c in record top script report flame export diff stats header list perfparser; do
	"$SCORCH" $c --help > "$W/h" 2> "$W/h.err" < /dev/null
	rc=$?
	check "cli_opts: $c --help: exit 0, usage on stdout" [ $rc = 0 -a -s "$W/h" -a ! -s "$W/h.err" ]
done

# record: clustered short flags, -- before the command
if "$SCORCH" record -q -o "$W/r0.data" -- true 2> "$W/r0.err"; then
	"$SCORCH" record -qg -o"$W/r1.data" -- true 2> "$W/r1.err"
	rc=$?
	check "cli_opts: record -qg -oFILE: exit 0, file written, quiet" [ $rc = 0 -a -s "$W/r1.data" -a ! -s "$W/r1.err" ]
	"$SCORCH" header -i "$W/r1.data" > "$W/r1.h" 2>&1
	check "cli_opts: record -qg: call graphs (sample_type CALLCHAIN)" grep -q CALLCHAIN "$W/r1.h"
else
	skip "cli_opts: record -qg" "scorch record does not run here: $(head -1 "$W/r0.err")"
fi

# perfparser keeps hotspot-perfparser's messages and exit status 1
"$SCORCH" perfparser --h > "$W/out" 2> "$W/err" < /dev/null
rc=$?
check "cli_opts: perfparser --h (ambiguous): exit 1, Qt's unknown-option line" [ $rc = 1 -a "$(cat "$W/err")" = "Unknown option 'h'." ]
"$SCORCH" perfparser --input > "$W/out" 2> "$W/err" < /dev/null
rc=$?
check "cli_opts: perfparser --input without a value: exit 1, Qt's line" [ $rc = 1 -a "$(cat "$W/err")" = "Missing value after '--input'." ]
