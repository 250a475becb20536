#!/bin/bash
# run-all.sh: `make bench`. Times scorch against its peers on recordings it
# makes itself and writes bench/RESULTS.md: the date, the machine (CPU
# model, cores, kernel, whether a hardware PMU is there, the load), the
# commit, and per figure the median of RUNS runs of scorch and of its peer,
# run in alternation in the same rounds (drifting load falls on both), and
# their ratio. It also puts a short table into README.md, between its
# "results" markers. Minutes on an idle machine with 2 CPUs; under 20 on
# a loaded one.
#   bench/run-all.sh            env: RUNS (3), SCORCH (build/scorch),
#                               BENCH_OUT (bench/RESULTS.md), BENCH_README (README.md)
# The other scripts in bench/ measure one area each in more depth.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP" || exit 1
S=${SCORCH:-$TOP/build/scorch}
RUNS=${RUNS:-3}
OUT=${BENCH_OUT:-$TOP/bench/RESULTS.md}
README=${BENCH_README:-$TOP/README.md}
REF=${HOTSPOT_PERFPARSER_REF:-/usr/lib/x86_64-linux-gnu/libexec/hotspot-perfparser}
W=$(mktemp -d /tmp/scorch-bench.XXXXXX)
trap 'rm -rf "$W"' EXIT
need() { command -v "$1" > /dev/null || { echo "run-all: needs $1 (scripts/deps.sh)" >&2; exit 1; }; }
[ -x "$S" ] || { echo "run-all: $S is not built (make)" >&2; exit 1; }
need perf
need bc
start=$SECONDS
log() { echo "run-all: $* ($((SECONDS - start)) s)" >&2; }

# ---- the machine ----
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
cores=$(nproc)
kernel=$(uname -r)
if perf stat -e cycles -x, true 2>&1 | grep -qE '^[0-9]+,'; then pmu=yes; else pmu="no (cpu-clock is sampled)"; fi
commit=$(git -C "$TOP" rev-parse --short HEAD 2> /dev/null || echo unknown)
git -C "$TOP" diff --quiet HEAD 2> /dev/null || commit="$commit (with changes not committed)"
load0=$(cut -d' ' -f1-3 /proc/loadavg)

# ---- the recordings (perf's own, so each peer reads a file of its kind) ----
# a parallel build of part of scorch (a copy of the tree, built into $W):
# many processes, C compilers, DWARF call graphs
log "recording a parallel build (DWARF call graphs)"
cp -r src Makefile mk scripts "$W/"
objs=""
for f in profile report flame folded pprof speedscope script diff; do objs="$objs $W/b/obj/src/output/$f.o"; done
perf record -q -e cpu-clock -F 1000 --call-graph dwarf -o "$W/build.data" -- \
	make -s -C "$W" -j"$cores" B="$W/b" DEPS=true $objs > /dev/null 2>&1
# the diff workload's two builds (new's grow() does twice base's work)
log "recording the diff workload"
for side in base new; do
	perf record -q -e cpu-clock -F 2999 -g -o "$W/$side.data" -- \
		build/workloads/diff/$side/diff_work 400 > /dev/null 2>&1
done
# thousands of distinct stacks, frame pointers
log "recording thousands of distinct stacks (frame pointers)"
gcc -O0 -fno-omit-frame-pointer -o "$W/many" tests/workloads/many_stacks.c
perf record -q -e cpu-clock -F 4999 -m 1024 -g -o "$W/many.data" -- "$W/many" 2.5 > /dev/null 2>&1
# off-CPU: two threads ping-ponging a byte over pipes, each switch a
# sched_switch sample whose fields script prints
log "recording an off-CPU ping-pong"
gcc -O2 -g -fno-omit-frame-pointer -pthread -o "$W/pingpong" bench/pingpong.c
perf record -q -e cpu-clock -e sched:sched_switch --switch-events -g -o "$W/off.data" -- \
	"$W/pingpong" 50000 > /dev/null 2>&1
for f in build base new many off; do
	[ -s "$W/$f.data" ] || { echo "run-all: the $f recording failed" >&2; exit 1; }
done
size() { echo "$(du -m "$1" | cut -f1) MB, $("$S" stats -i "$1" | sed -n 's/^samples: //p') samples"; }

# ---- timing ----
# one CMD...: "wall cpu" seconds of one run (bash's time: milliseconds)
one() {
	local t
	t=$( { TIMEFORMAT='%3R %3U %3S'; time "$@" > /dev/null 2>&1; } 2>&1 | tail -1)
	awk '{ printf "%.3f %.3f\n", $1, $2 + $3 }' <<< "$t"
}
median() { sort -n | awk '{ v[NR] = $1 } END { if (NR) printf "%.3f", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
rows=()
short=()
# row "FIGURE" "RECORDING" "PEER NAME" -- SCORCH CMD... -- PEER CMD...: RUNS
# rounds of both in alternation; the medians of wall and CPU time and the
# ratios peer / scorch (above 1: scorch takes less) of both
row() {
	local fig=$1 rec=$2 peer=$3 i a=() b=()
	shift 4
	while [ "$1" != -- ]; do a+=("$1"); shift; done
	shift
	b=("$@")
	: > "$W/s" && : > "$W/p"
	for i in $(seq "$RUNS"); do
		if [ $((i % 2)) = 1 ]; then one "${a[@]}" >> "$W/s"; one "${b[@]}" >> "$W/p"
		else one "${b[@]}" >> "$W/p"; one "${a[@]}" >> "$W/s"; fi
	done
	local sw sc pw pc rw rc
	sw=$(cut -d' ' -f1 "$W/s" | median); sc=$(cut -d' ' -f2 "$W/s" | median)
	pw=$(cut -d' ' -f1 "$W/p" | median); pc=$(cut -d' ' -f2 "$W/p" | median)
	rw=$(awk -v p="$pw" -v s="$sw" 'BEGIN { printf "%.2f", p / (s > 0 ? s : 0.001) }')
	rc=$(awk -v p="$pc" -v s="$sc" 'BEGIN { printf "%.2f", p / (s > 0 ? s : 0.001) }')
	rows+=("| $fig | $rec | $sw s | $sc s | $peer | $pw s | $pc s | ${rw}x | ${rc}x |")
	short+=("| $fig | $peer | ${rc}x |")
	log "$fig: $sw s, $peer $pw s"
}

log "timing ($RUNS runs each)"
# (without inline frames on both sides: perf asks addr2line for them, a
# process per file, which takes minutes a run)
row "script --no-inline, DWARF" build "perf script --no-inline" -- "$S" script --no-inline -i "$W/build.data" \
	-- perf script --no-inline -i "$W/build.data"
row "report, DWARF" build "perf report --stdio --no-inline" -- "$S" report -i "$W/build.data" \
	-- perf report --stdio --no-inline -i "$W/build.data"
row "script, frame pointers" many "perf script" -- "$S" script -i "$W/many.data" -- perf script -i "$W/many.data"
row "report, frame pointers" many "perf report --stdio" -- "$S" report -i "$W/many.data" -- perf report --stdio -i "$W/many.data"
row "script, off-CPU (tracepoint fields)" off "perf script" -- "$S" script -i "$W/off.data" -- perf script -i "$W/off.data"
row "stats (read and order)" build "perf report --stats" -- "$S" stats -i "$W/build.data" -- perf report --stats -i "$W/build.data"
if [ -x "$REF" ]; then
	row "perfparser, DWARF" build "hotspot-perfparser" -- "$S" perfparser --input "$W/build.data" --output /dev/null \
		-- "$REF" --input "$W/build.data" --output /dev/null
else
	rows+=("| perfparser, DWARF | build | | | hotspot-perfparser | not installed | | | |")
fi
row "diff" "base, new" "perf diff" -- "$S" diff "$W/base.data" "$W/new.data" -- perf diff "$W/base.data" "$W/new.data"
# scorch against itself: the outputs aggregate as samples stream by, so each
# takes about what script takes; -j 2 against -j 1
row "report, against script" build "scorch script" -- "$S" report -i "$W/build.data" -- "$S" script -i "$W/build.data"
row "flame, against script" build "scorch script" -- "$S" flame -i "$W/build.data" -o "$W/f.html" -- "$S" script -i "$W/build.data"
row "flame of many stacks, against script" many "scorch script" -- "$S" flame -i "$W/many.data" -o "$W/m.html" \
	-- "$S" script -i "$W/many.data"
row "script -j 2, against -j 1" build "scorch script -j 1" -- "$S" script -j 2 -i "$W/build.data" -- "$S" script -j 1 -i "$W/build.data"
row "perfparser -j 2, against -j 1" build "scorch perfparser -j 1" \
	-- "$S" perfparser -j 2 --input "$W/build.data" --output /dev/null \
	-- "$S" perfparser -j 1 --input "$W/build.data" --output /dev/null
# stitching (on by default in report) against the same report without it
row "report, stitching against --no-stitch" build "scorch report --no-stitch" \
	-- "$S" report -i "$W/build.data" -- "$S" report --no-stitch -i "$W/build.data"
# annotate: the top 10 symbols in one run against perf annotate --stdio, a
# run a symbol (bench/annotate_bench.sh), one round: perf takes minutes
log "timing annotate against perf annotate"
SCORCH=$S bench/annotate_bench.sh "$W/build.data" 10 > "$W/ann" 2> /dev/null
if read -r _ sw sc pw pc ns cut < <(grep '^result: ' "$W/ann"); then
	lb=$([ "$cut" -gt 0 ] && echo ">= ")
	rw=$(awk -v p="$pw" -v s="$sw" 'BEGIN { printf "%.2f", p / (s > 0 ? s : 0.001) }')
	rc=$(awk -v p="$pc" -v s="$sc" 'BEGIN { printf "%.2f", p / (s > 0 ? s : 0.001) }')
	rows+=("| annotate top $ns symbols vs perf annotate --stdio (one round$([ "$cut" -gt 0 ] && echo ", $cut perf runs cut at ${PERF_TIMEOUT:-120} s")) | build | $sw s | $sc s | perf annotate --stdio, a run a symbol | $pw s | $pc s | ${lb}${rw}x | ${lb}${rc}x |")
	short+=("| annotate top $ns symbols | perf annotate --stdio | ${lb}${rc}x |")
	log "annotate: $sw s, perf annotate $pw s"
else
	rows+=("| annotate top 10 symbols vs perf annotate --stdio | build | (annotate_bench.sh failed) | | | | | | |")
fi
# what recording's build-id step adds, scorch's against perf's
log "timing the build-id step of record"
RUNS=$((RUNS < 5 ? 5 : RUNS)) SCORCH=$S bench/buildid_bench.sh > "$W/bid" 2> /dev/null || echo "(buildid_bench.sh failed)" > "$W/bid"
# not a time but a measure that needs one: the diff workload's grow() does
# twice the work in new; its sampled time, new over base
grow=$("$S" diff "$W/base.data" "$W/new.data" -f csv | awk -F, '$1 == "grow" { printf "%.2f", $7 / $6 }')
load1=$(cut -d' ' -f1-3 /proc/loadavg)

# ---- RESULTS.md ----
{
	echo "# Results"
	echo
	echo "Written by \`bench/run-all.sh\` (\`make bench\`); each figure is the median of"
	echo "$RUNS runs of scorch and $RUNS of its peer, run in alternation on the same"
	echo "recording; the ratios are the peer's median over scorch's, of the wall time"
	echo "and of the CPU time (user + system, children included); above 1: scorch"
	echo "takes less. On a loaded machine the CPU ratio is the steadier one."
	echo
	echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "- commit: $commit"
	echo "- machine: $cpu, $cores cores, kernel $kernel, hardware PMU: $pmu"
	echo "- load average (1, 5, 15 min): $load0 at the start, $load1 at the end$( [ "${load0%%.*}" -ge "$cores" ] && echo " (the machine was shared with other work: the walls carry its noise; the ratios less so)")"
	echo "- took $(( (SECONDS - start + 30) / 60 )) min"
	echo
	echo "The recordings (made by perf record in the run):"
	echo
	echo "- build: a parallel build (\`make -j$cores\`) of 8 of scorch's units (src/output),"
	echo "  \`-e cpu-clock -F 1000 --call-graph dwarf\` ($(size "$W/build.data"))"
	echo "- base, new: tests/workloads/diff_work's two builds, \`-F 2999 -g\` ($(size "$W/base.data"); $(size "$W/new.data"))"
	echo "- many: tests/workloads/many_stacks.c, thousands of distinct stacks, frame pointers, \`-F 4999 -g\` ($(size "$W/many.data"))"
	echo "- off: bench/pingpong.c, 50,000 round trips, \`-e cpu-clock -e sched:sched_switch --switch-events -g\` ($(size "$W/off.data"))"
	echo
	echo "| figure | recording | scorch wall | scorch CPU | peer | peer wall | peer CPU | ratio, wall | ratio, CPU |"
	echo "|---|---|---|---|---|---|---|---|---|"
	printf '%s\n' "${rows[@]}"
	echo
	echo "The diff workload's grow() does twice the work in new: scorch diff's time"
	echo "for it, new over base: ${grow}."
	echo
	echo "What the build-id step adds to a recording (\`bench/buildid_bench.sh\`: a small"
	echo "program recorded with the step and without it, scorch \`record -N\` and"
	echo "perf \`record -B\`, in alternation; cold: an empty cache, warm: a filled"
	echo "one; median wall milliseconds):"
	echo
	echo '```'
	cat "$W/bid"
	echo '```'
} > "$OUT.tmp" && mv "$OUT.tmp" "$OUT"
log "wrote $OUT"

# ---- README's short table ----
if [ -f "$README" ] && grep -q '^<!-- results:' "$README"; then
	{
		echo "| figure | peer | peer CPU time / scorch CPU time |"
		echo "|---|---|---|"
		for r in "${short[@]:0:8}"; do echo "$r"; done
	} > "$W/short"
	awk -v f="$W/short" '/^<!-- results:/ { print; while ((getline l < f) > 0) print l; skip = 1; next }
		/^<!-- end of results -->/ { skip = 0 } !skip { print }' "$README" > "$W/readme" &&
		cat "$W/readme" > "$README"
	log "updated the table in $README"
fi
