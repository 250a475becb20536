#!/bin/bash
# kscache.sh: the cache of parsed kallsyms tables (src/analyze/cache/kscache.c).
# A recording with kernel frames, named from a kallsyms file (--kallsyms, a
# copy of /proc/kallsyms: a regular file, as perf's build-id cache copy is):
# `scorch script` prints the same bytes with the cache off, on the run that
# stores the image, on the run that reads it (strace shows the image
# opened and the kallsyms file not read), with a truncated, a garbage and a
# stale image (the source touched: each ignored, then replaced), and with
# four runs racing on an empty cache (one whole image, no temporaries
# left). /proc/kallsyms itself is never cached. SCORCH_CACHE_MAX bounds the
# cache: with room for two images, a third store deletes the one used
# longest ago, and a hit counts as a use.
. "$(dirname "$0")/lib.sh"

if ! perf record -q -o /dev/null -- true > /dev/null 2>&1; then
	skip kscache "perf record does not work here"
	exit 0
fi
perf record -q -e cpu-clock -F 4000 -g -o "$W/perf.data" -- \
	dd if=/dev/zero of=/dev/null bs=64k count=60000 > /dev/null 2>&1 || { fail kscache_record; exit 0; }
cp /proc/kallsyms "$W/kallsyms"
if ! grep -q -v '^0000000000000000' "$W/kallsyms"; then
	skip kscache "kernel addresses are hidden (kptr_restrict)"
	exit 0
fi

export XDG_CACHE_HOME=$W/xdg
D=$W/xdg/scorch/kallsyms-v1
run() { "$SCORCH" script --kallsyms "$W/kallsyms" -i "$W/perf.data" 2> /dev/null; }
img() { ls "$D"/*.ksyms 2> /dev/null; }

SCORCH_NO_CACHE=1 run > "$W/ref.txt"
check kscache_off_writes_nothing test ! -e "$W/xdg"
n=$(grep -c '\[kernel.kallsyms\]' "$W/ref.txt")
check "kscache_output_has_kernel_frames ($n)" test "$n" -gt 100
check kscache_kernel_frames_named \
	bash -c "grep '\[kernel.kallsyms\]' '$W/ref.txt' | grep -vq '\[unknown\] (\[kernel.kallsyms\])'"
run > "$W/store.txt"
check kscache_store_same_output cmp "$W/ref.txt" "$W/store.txt"
check kscache_stored test "$(img | wc -l)" = 1
C=$(img)
good=$(stat -c %s "$C" 2> /dev/null)
if command -v strace > /dev/null; then
	strace -f -e trace=openat,read -o "$W/strace.txt" "$SCORCH" script --kallsyms "$W/kallsyms" \
		-i "$W/perf.data" > "$W/read.txt" 2> /dev/null
	check kscache_read_same_output cmp "$W/ref.txt" "$W/read.txt"
	check kscache_read_opens_image grep -q 'kallsyms-v1/.*\.ksyms", O_RDONLY' "$W/strace.txt"
	# the kallsyms file is opened (for its identity) but not read
	fd=$(sed -n "s|.*openat(.*\"$W/kallsyms\", O_RDONLY) = \([0-9]*\)|\1|p" "$W/strace.txt" | head -1)
	check "kscache_source_not_read (fd $fd)" \
		bash -c "[ -n '$fd' ] && ! grep -q '^[0-9]* *read($fd,' '$W/strace.txt'"
else
	skip kscache_read_opens_image "strace is not installed"
fi
for bad in truncate garbage stale; do
	case $bad in
	truncate) head -c $((good / 2)) "$C" > "$W/bad"; cp "$W/bad" "$C" ;;
	garbage) head -c 100000 /dev/urandom > "$W/bad"; cp "$W/bad" "$C" ;;
	stale) touch -d '+1 second' "$W/kallsyms" ;;
	esac
	before=$(md5sum < "$C")
	run > "$W/$bad.txt"
	check "kscache_${bad}_same_output" cmp "$W/ref.txt" "$W/$bad.txt"
	check "kscache_${bad}_replaced" bash -c "[ \"\$(stat -c %s '$C')\" = '$good' ] && [ \"\$(md5sum < '$C')\" != '$before' ]"
done
cache_race kscache run
check kscache_race_one_whole_image bash -c "[ \"\$(ls '$D' | wc -l)\" = 1 ] && [ \"\$(stat -c %s \"\$(ls '$D'/*.ksyms)\")\" = '$good' ]"
run > "$W/after.txt"
check kscache_after_race_same_output cmp "$W/ref.txt" "$W/after.txt"
# /proc/kallsyms is not a regular file: never cached
rm -rf "$W/xdg"
"$SCORCH" script --kallsyms /proc/kallsyms -i "$W/perf.data" > /dev/null 2>&1
check kscache_proc_not_cached test -z "$(img)"

# SCORCH_CACHE_MAX: room for two images and a half; three sources
rm -rf "$W/xdg"
cp "$W/kallsyms" "$W/k2"
cp "$W/kallsyms" "$W/k3"
runk() { "$SCORCH" script --kallsyms "$1" -i "$W/perf.data" 2> /dev/null; }
stores() { # does a run with kallsyms file $1 store an image (a temporary file made)?
	strace -f -e trace=openat -o "$W/st.txt" "$SCORCH" script --kallsyms "$1" -i "$W/perf.data" > "$W/st.out" 2> /dev/null
	cmp -s "$W/ref.txt" "$W/st.out" || echo "output differs"
	grep -q 'kallsyms-v1/.*\.tmp\..*O_CREAT' "$W/st.txt" && echo yes || echo no
}
export SCORCH_CACHE_MAX=$((good * 5 / 2))
runk "$W/kallsyms" > "$W/b1.txt"
runk "$W/k2" > "$W/b2.txt"
runk "$W/kallsyms" > "$W/b3.txt" # a hit: now used after k2's
runk "$W/k3" > "$W/b4.txt"       # a third store: k2's image goes
for i in 1 2 3 4; do check "kscache_bound_${i}_same_output" cmp "$W/ref.txt" "$W/b$i.txt"; done
check "kscache_bound_two_images ($(ls "$D" | wc -l))" test "$(ls "$D" | wc -l)" = 2
if command -v strace > /dev/null; then
	kept=$(stores "$W/kallsyms")
	gone=$(stores "$W/k2")
	check "kscache_bound_recent_kept (stored again: $kept)" test "$kept" = no
	check "kscache_bound_oldest_deleted (stored again: $gone)" test "$gone" = yes
fi
unset SCORCH_CACHE_MAX
