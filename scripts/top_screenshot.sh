#!/bin/bash
# top_screenshot.sh: docs/top.png, `scorch top` in an 80x24 xterm under Xvfb
# (FP call graphs on tests/workloads/calls.c), dumped with xwd and converted
# by xwd2png.py. The view is paused (p) before the dump, so the picture is
# one steady frame.
#   scripts/top_screenshot.sh [OUT.png]
# Needs: xvfb, xterm, x11-apps (xwd), a built build/scorch and workloads.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
OUT=${1:-$TOP/docs/top.png}
W=$(mktemp -d /tmp/scorch-shot.XXXXXX)
DPY=:$((90 + RANDOM % 100))
cleanup() {
	[ -n "${TP:-}" ] && kill "$TP" 2> /dev/null
	[ -n "${XP:-}" ] && kill "$XP" 2> /dev/null
	rm -rf "$W"
}
trap cleanup EXIT
Xvfb "$DPY" -screen 0 1024x768x24 > "$W/xvfb.log" 2>&1 &
XP=$!
sleep 1
export DISPLAY=$DPY
xterm -geometry 80x24+0+0 -fa Monospace -fs 11 -bg black -fg grey90 -b 4 \
	-e "$TOP/build/scorch" top -e cpu-clock -g -d 1 -- "$TOP/build/workloads/calls-fp" 600000 &
TP=$!
sleep 8
xdotool key --window "$(xdotool search --pid $TP | head -1)" p 2> /dev/null || true
sleep 1.5
id=$(xdotool search --pid $TP | head -1)
read -r w h < <(xwininfo -id "$id" | awk '/Width:/ { w = $2 } /Height:/ { h = $2 } END { print w, h }')
xwd -root -silent | python3 "$TOP/scripts/xwd2png.py" "$OUT" 0 0 "${w:-724}" "${h:-436}" || exit 1
echo "wrote $OUT (${w}x${h})"
