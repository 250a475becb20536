#!/bin/bash
# diff_screenshot.sh: docs/diff-flame.png, the differential flame graph of
# the diff workload's two builds (build/workloads/diff/{base,new}, mk/diff.mk:
# grow() does twice the work in new) in headless Chromium, hovering grow()
# so its tooltip shows both sides. Uses tests/tools/outputs_browser.mjs.
#   scripts/diff_screenshot.sh [OUT.png]
# Needs: perf, node + scripts/npm-deps.sh, /usr/bin/chromium, make.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
OUT=${1:-$TOP/docs/diff-flame.png}
S=${SCORCH:-$TOP/build/scorch}
W=$(mktemp -d /tmp/scorch-dshot.XXXXXX)
trap 'rm -rf "$W"' EXIT
"$TOP/scripts/npm-deps.sh" || exit 1
for side in base new; do
	perf record -q -e cpu-clock -F 2999 -g -o "$W/$side.data" -- \
		"$TOP/build/workloads/diff/$side/diff_work" 400 > /dev/null 2>&1 || exit 1
done
cd "$W" && "$S" flame --diff base.data new.data -o diff.html || exit 1
node "$TOP/tests/tools/outputs_browser.mjs" flamediff "$W/diff.html" grow "$OUT"
