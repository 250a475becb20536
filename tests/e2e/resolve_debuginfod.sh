#!/bin/bash
# resolve_debuginfod.sh: a binary that is gone from the machine is fetched
# from a debuginfod server (a local one, serving a directory) when
# DEBUGINFOD_URLS is set, and not looked up otherwise.
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/e2e/lib.sh"
command -v debuginfod > /dev/null || { fail "debuginfod server not installed (scripts/deps.sh)"; exit 0; }
mkdir -p "$W/srv"
# a build id nobody has cached: the binary carries a random string
build_workload dg_leaf.c "$W/w" -O1 -g -fno-omit-frame-pointer -Wl,--build-id \
	-DDG_SALT="\"$RANDOM$RANDOM$$\""
perf record -N -q -e cpu-clock -F 1000 -g -o "$W/w.data" "$W/w" > /dev/null 2>&1
bid=$(readelf -n "$W/w" | awk '/Build ID/ {print $3}')
mv "$W/w" "$W/srv/w"
port=$((20000 + RANDOM % 20000))
debuginfod -p $port -F "$W/srv" -d "$W/db.sqlite" > "$W/dbgd.log" 2>&1 &
srv=$!
trap 'kill $srv 2>/dev/null; rm -rf "$W"' EXIT
ok=0
for _ in $(seq 50); do
	if python3 -c "import urllib.request,sys; urllib.request.urlopen('http://127.0.0.1:$port/buildid/$bid/executable', timeout=2)" 2>/dev/null; then
		ok=1; break
	fi
	sleep 0.2
done
check "debuginfod server serves the binary" [ $ok = 1 ]
n0=$(env -u DEBUGINFOD_URLS "$SCORCH" script -i "$W/w.data" 2>/dev/null | grep -c 'dg_leaf')
n1=$(DEBUGINFOD_URLS=http://127.0.0.1:$port DEBUGINFOD_CACHE_PATH=$W/cache "$SCORCH" script -i "$W/w.data" 2>/dev/null | grep -c 'dg_leaf')
check "without DEBUGINFOD_URLS the gone binary's frames are unknown ($n0 dg_leaf)" [ "$n0" = 0 ]
check "with DEBUGINFOD_URLS they are symbolized ($n1 dg_leaf)" [ "$n1" -ge 50 ]
