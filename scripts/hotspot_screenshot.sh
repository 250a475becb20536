#!/bin/bash
# hotspot_screenshot.sh: docs/hotspot.png, hotspot's flame graph with scorch
# as its parser. Runs hotspot under Xvfb with HOTSPOT_PERFPARSER pointing at
# build/scorch-perfparser, waits for the parser to finish, clicks the
# "Flame Graph" tab and dumps the window (xwd, converted by xwd2png.py).
#   scripts/hotspot_screenshot.sh [PERF.DATA] [OUT.png]
# Without PERF.DATA it records tests/workloads/pp_threads.c (DWARF call graph).
# HOTSPOT_COST=NAME picks that cost in the flame graph's cost box first (the
# first item whose name starts with NAME: "off" for Off-CPU Time).
# Needs: xvfb, xdotool, x11-apps (xwd), hotspot, perf, gcc.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
OUT=${2:-$TOP/docs/hotspot.png}
W=$(mktemp -d /tmp/scorch-shot.XXXXXX)
DPY=:$((90 + RANDOM % 100))
cleanup() {
	[ -n "${HP:-}" ] && kill "$HP" 2> /dev/null
	[ -n "${XP:-}" ] && kill "$XP" 2> /dev/null
	rm -rf "$W"
}
trap cleanup EXIT
data=${1:-}
if [ -z "$data" ]; then
	gcc -O2 -g -fno-omit-frame-pointer -pthread -o "$W/pp_threads" "$TOP/tests/workloads/pp_threads.c" -lm || exit 1
	data=$W/pp.data
	perf record -q -e cpu-clock --call-graph dwarf -o "$data" "$W/pp_threads" 400 > /dev/null 2>&1 || exit 1
fi
Xvfb "$DPY" -screen 0 1400x900x24 > "$W/xvfb.log" 2>&1 &
XP=$!
sleep 1
cat > "$W/wrap.sh" << 'EOS'
#!/bin/sh
"$PP_REAL" "$@"
rc=$?
echo $rc > "$PP_DONE"
exit $rc
EOS
chmod +x "$W/wrap.sh"
DISPLAY=$DPY XDG_RUNTIME_DIR=$W PP_REAL=$TOP/build/scorch-perfparser PP_DONE=$W/done \
	HOTSPOT_PERFPARSER=$W/wrap.sh hotspot "$data" > "$W/hotspot.log" 2>&1 &
HP=$!
for _ in $(seq 1 600); do [ -e "$W/done" ] && break; sleep 0.1; done
[ "$(cat "$W/done" 2> /dev/null)" = 0 ] || { echo "parser failed"; exit 1; }
sleep 3
export DISPLAY=$DPY
# the tab bar sits at the top of hotspot's main window (maximized at 0,0)
xdotool mousemove 343 55 click 1
sleep 2
if [ -n "${HOTSPOT_COST:-}" ]; then
	# the cost box of the flame graph view, left of "Bottom-Up View"
	xdotool mousemove 215 99 click 1
	sleep 1
	xdotool type "$HOTSPOT_COST"
	xdotool key Return
	sleep 3
fi
xwd -root -silent | python3 "$TOP/scripts/xwd2png.py" "$OUT" 0 0 1124 770 || exit 1
echo "wrote $OUT"
