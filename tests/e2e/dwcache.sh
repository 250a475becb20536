#!/bin/bash
# dwcache.sh: the cache of decompressed debug files (src/analyze/cache/dwcache.c).
# A workload with a separate debug file whose .debug_* sections are
# zlib-compressed: `scorch script` prints the same bytes with the cache off,
# on the run that stores the copy, on the run that reads it (strace shows
# the cached file opened), with a truncated, a garbage and a wrong-build-id
# cache file (each ignored, then replaced by a good copy), and with four
# runs racing on an empty cache (one whole file, no temporaries left).
. "$(dirname "$0")/lib.sh"

perf_ok() { perf record -q -o /dev/null -- true > /dev/null 2>&1; }
if ! perf_ok; then
	skip dwcache "perf record does not work here"
	exit 0
fi
build_workload calls.c "$W/calls" -O2 -g -Wl,--build-id || { fail dwcache_build; exit 0; }
id=$(readelf -n "$W/calls" 2> /dev/null | sed -n 's/.*Build ID: //p')
mkdir -p "$W/dbg/.build-id/${id:0:2}"
objcopy --only-keep-debug --compress-debug-sections=zlib "$W/calls" \
	"$W/dbg/.build-id/${id:0:2}/${id:2}.debug"
strip -g "$W/calls"
check dwcache_debug_is_compressed \
	bash -c "readelf -SW '$W/dbg/.build-id/${id:0:2}/${id:2}.debug' 2> /dev/null | grep -q '\.debug_info.* C '"
perf record -q -F 2000 --call-graph dwarf -o "$W/perf.data" -- "$W/calls" 200 > /dev/null 2>&1 ||
	{ fail dwcache_record; exit 0; }

export XDG_CACHE_HOME=$W/xdg
C=$W/xdg/scorch/dwarf-v1/$id.debug
run() { "$SCORCH" script --debug "$W/dbg" -i "$W/perf.data" 2> /dev/null; }

SCORCH_NO_CACHE=1 run > "$W/ref.txt"
check dwcache_off_writes_nothing test ! -e "$W/xdg"
check dwcache_output_has_workload grep -q leaf_mul "$W/ref.txt"
run > "$W/store.txt"
check dwcache_store_same_output cmp "$W/ref.txt" "$W/store.txt"
check dwcache_stored test -s "$C"
check dwcache_copy_uncompressed \
	bash -c "readelf -SW '$C' | grep -q '\.debug_info' && ! readelf -SW '$C' | grep '^ *\[' | grep -q ' C '"
if command -v strace > /dev/null; then
	strace -f -e trace=openat -o "$W/strace.txt" "$SCORCH" script --debug "$W/dbg" \
		-i "$W/perf.data" > "$W/read.txt" 2> /dev/null
	check dwcache_read_same_output cmp "$W/ref.txt" "$W/read.txt"
	check dwcache_read_opens_copy grep -q "dwarf-v1/$id.debug\", O_RDONLY" "$W/strace.txt"
else
	skip dwcache_read_opens_copy "strace is not installed"
fi
good=$(stat -c %s "$C")
for bad in truncate garbage wrongid; do
	case $bad in
	truncate) head -c $((good / 2)) "$C" > "$W/bad" ;;
	garbage) head -c 100000 /dev/urandom > "$W/bad" ;;
	wrongid) cp "$(ls /usr/lib/debug/.build-id/*/*.debug 2> /dev/null | head -1)" "$W/bad" 2> /dev/null ||
		cp /bin/true "$W/bad" ;;
	esac
	cp "$W/bad" "$C"
	run > "$W/$bad.txt"
	check "dwcache_${bad}_same_output" cmp "$W/ref.txt" "$W/$bad.txt"
	check "dwcache_${bad}_replaced" test "$(stat -c %s "$C")" = "$good"
done
cache_race dwcache run
check dwcache_race_one_whole_file test "$(stat -c %s "$C")" = "$good"
check dwcache_race_no_temporaries test -z "$(ls "$W/xdg/scorch/dwarf-v1" | grep tmp)"
run > "$W/after.txt"
check dwcache_after_race_same_output cmp "$W/ref.txt" "$W/after.txt"
