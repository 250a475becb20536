#!/bin/bash
# size_bench.sh: how time and memory follow the size of a recording.
#
#   bench/size_bench.sh FILE...      (e.g. 0.2, 1 and 2.3 GB of repeated builds)
#
# For each file, smallest first: `scorch perfparser` (stream to a file) and
# `scorch script` (to /dev/null), RUNS times each (default 3), alternating,
# and hotspot-perfparser REF_RUNS times (default 1; 0 skips it). Prints the
# median wall time and peak RSS (/usr/bin/time %M, in units of 1000 KB) of
# each, the ratios hotspot-perfparser / scorch, and each scorch RSS minus
# the first file's: the growth with the file (meant to stay flat). Each timed run comes right after a `cat` of the file, whose median
# time is printed too: the floor for reading it.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$TOP/bench/lib.sh"
RUNS=${RUNS:-3}
[ $# -ge 1 ] || { echo "usage: bench/size_bench.sh FILE..." >&2; exit 2; }
bench_peer_tools size_bench
W=$(mktemp -d /tmp/scorch-sizebench.XXXXXX)
trap 'rm -rf "$W"' EXIT

# one NAME CMD...: appends "wall kb" of one run to $W/NAME, the file read
# (cat, itself timed into $W/cat) just before: a virtual machine's page cache can lose
# pages of a multi-GB file between runs (kdamond), and a run that reads from
# the disk measures the disk
one() {
	local n=$1
	shift
	/usr/bin/time -f "%e %M" -o "$W/t" cat "$f" > /dev/null 2>&1
	cat "$W/t" >> "$W/cat"
	/usr/bin/time -f "%e %M" -o "$W/t" "$@" > /dev/null 2>&1
	cat "$W/t" >> "$W/$n"
}
# med NAME COLUMN: the median of a column of $W/NAME
med() { sort -n -k"$2" "$W/$1" | awk -v c="$2" '{v[NR] = $c} END {print v[int((NR + 1) / 2)]}'; }

echo "machine: $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-22s %6s %7s %15s %15s %16s %11s %16s\n' file size "cat s" "perfparser s/MB" \
	"script s/MB" "hp-perfparser" "hp/pp hp/sc" "RSS growth pp/sc"
first_pp= first_sc=
for f in "$@"; do
	[ -s "$f" ] || { echo "size_bench: $f: no such file" >&2; exit 1; }
	k=$(basename "$f")
	rm -f "$W/pp" "$W/sc" "$W/ref" "$W/cat"
	for i in $(seq "$RUNS"); do
		one pp "$SC" perfparser --input "$f" --output "$W/out.pp"
		one sc "$SC" script -i "$f"
	done
	for i in $(seq "$REF_RUNS"); do
		one ref "$REF" --input "$f" --output "$W/out.ref"
	done
	pw=$(med pp 1) pm=$(med pp 2) sw=$(med sc 1) sm=$(med sc 2)
	[ -z "$first_pp" ] && first_pp=$pm first_sc=$sm
	if [ "$REF_RUNS" -gt 0 ]; then
		rw=$(med ref 1) rm=$(med ref 2)
		refcol=$(printf '%.2f / %.1f' "$rw" "$(echo "$rm / 1000" | bc -l)")
		ratio=$(printf '%.0fx %.0fx' "$(echo "$rw / $pw" | bc -l)" "$(echo "$rw / $sw" | bc -l)")
	else
		refcol=- ratio=-
	fi
	printf '%-22s %5.2fG %7.2f %15s %15s %16s %11s %16s\n' "$k" \
		"$(echo "$(stat -c %s "$f") / 1000000000" | bc -l)" "$(med cat 1)" \
		"$(printf '%.2f / %.1f' "$pw" "$(echo "$pm / 1000" | bc -l)")" \
		"$(printf '%.2f / %.1f' "$sw" "$(echo "$sm / 1000" | bc -l)")" \
		"$refcol" "$ratio" \
		"$(printf '%+.1f / %+.1f' "$(echo "($pm - $first_pp) / 1000" | bc -l)" "$(echo "($sm - $first_sc) / 1000" | bc -l)")"
done
echo "machine after: load $(cut -d' ' -f1-3 /proc/loadavg)"
