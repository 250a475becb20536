#!/bin/bash
# outputs_width.sh: scorch report's width. Written to a file or a pipe it
# names every function whole, as perf report --stdio does: a C++ function
# of more than 300 characters (tests/workloads/longname.cpp) appears as
# perf report prints it. On a terminal (tmux, 100 columns) every line fits
# the terminal; -w chooses a width either way.
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/e2e/lib.sh"
S=$SCORCH
P=$W/longname
if ! g++ -O2 -g -fno-omit-frame-pointer -o "$P" "$WL_SRC/longname.cpp"; then
	fail "build tests/workloads/longname.cpp"
	exit 0
fi
D=$W/ln.data
perf record -q -e cpu-clock -F 999 -g -o "$D" -- "$P" 300 > /dev/null 2>&1
if [ ! -s "$D" ]; then
	fail "record longname"
	exit 0
fi
widest() { awk '{ if (length > m) m = length } END { print m + 0 }' "$1"; }

# the hot function's name as perf report --stdio prints it
name=$(perf report -i "$D" --stdio --no-children --sort sym 2> /dev/null |
	awk '/%/ && /spin_in_a_function_with_a_long_name/ { sub(/^.*\[\.\] /, ""); print; exit }')
check "perf report names the function (${#name} characters)" [ "${#name}" -gt 300 ]

"$S" report -i "$D" > "$W/r" 2> "$W/r.err"
n=$(grep -cF -- "$name" "$W/r")
check "report > file: the ${#name}-character name whole ($n lines), as perf report" [ "$n" -ge 2 ]
check "report > file: an entry line ends in the whole name" grep -qE -- "\[\.\] $(printf '%s' "$name" | sed 's/[][\.*^$]/\\&/g')$" "$W/r"
"$S" report -i "$D" | cat > "$W/rp"
check "report | cat: the same as to a file" cmp -s "$W/r" "$W/rp"
"$S" report -i "$D" -o "$W/ro" 2> /dev/null
check "report -o FILE: the same as to a file" cmp -s "$W/r" "$W/ro"
for wd in 80 120; do
	"$S" report -i "$D" -w $wd > "$W/rw"
	check "report -w $wd > file fits $wd columns ($(widest "$W/rw"))" [ "$(widest "$W/rw")" -le $wd ]
	check "report -w $wd cuts the name with '..'" grep -qE '\[\.\] scorch_longname_test_n[^ ]*\.\.$' "$W/rw"
done

# ---- on a terminal: tmux, 100 columns ----
if ! command -v tmux > /dev/null; then
	skip "report on a terminal" "tmux not installed: scripts/deps.sh"
	exit 0
fi
TS=scorch-width-$$
tmx() { tmux -L "$TS" "$@"; }
trap 'tmx kill-server 2> /dev/null; rm -rf "$W"' EXIT
# the report on the terminal, then a marker; -J joins what the terminal
# wrapped, so a line wider than the terminal shows as one long line
tmx -f /dev/null new-session -d -s r -x 100 -y 50 \
	"$S report -i $D --top 12 --tree 2; echo REPORT-DONE \$?; sleep 60"
for _ in $(seq 150); do
	tmx capture-pane -p -J -S - -t r > "$W/screen" 2> /dev/null
	grep -q '^REPORT-DONE' "$W/screen" && break
	sleep 0.1
done
check "report on a 100-column terminal ran" grep -q '^REPORT-DONE 0' "$W/screen"
grep -v '^REPORT-DONE' "$W/screen" > "$W/rt"
check "report on a 100-column terminal fits 100 columns ($(widest "$W/rt"))" [ "$(widest "$W/rt")" -le 100 ]
check "report on a 100-column terminal: the long name cut with '..'" grep -qE '\[\.\] scorch_longname_test_n[^ ]*\.\.$' "$W/rt"
tmx new-session -d -s w -x 100 -y 50 \
	"$S report -i $D --top 12 --tree 2 -w 0; echo REPORT-DONE \$?; sleep 60"
for _ in $(seq 150); do
	tmx capture-pane -p -J -S - -t w > "$W/screen0" 2> /dev/null
	grep -q '^REPORT-DONE' "$W/screen0" && break
	sleep 0.1
done
check "report -w 0 on a terminal: the name whole" grep -qF -- "$name" "$W/screen0"
