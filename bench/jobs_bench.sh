#!/bin/bash
# jobs_bench.sh: how much faster is the analysis with -j 2 than with -j 1?
#
# On a big DWARF recording (default: the parallel build reader_bench.sh
# records into build/bench/, recorded here the same way when missing) times,
# warm cache, RUNS rounds (default 5) in which every command runs once, in
# turn, so that a change of machine load hits all of them alike:
#   scorch script -j 1 / -j 2              (> /dev/null)
#   scorch perfparser -j 1 / -j 2          (--output /dev/null)
#   two scorch script -j 1 at once         (the machine's ceiling for two
#                                           threads: what -j 2 would reach if
#                                           its threads repeated no work)
#   hotspot-perfparser                     (--output /dev/null; single-threaded,
#                                           the peer of scorch perfparser)
# and prints per command the median wall and CPU (user + sys) seconds and
# peak RSS (for the two runs at once: the larger), then the peak RSS of
# script and perfparser at -j 1, 2, 4 and 8 (one run each: what each added
# thread holds), and
# the ratios: -j 1 / -j 2 (wall), hotspot-perfparser / scorch perfparser
# -j 1 and -j 2 (wall and CPU). The machine load (uptime) before and after
# goes with them: on a shared machine other work takes cores too, and a
# -j 2 run can only be as fast as the cores it gets. Before timing, -j 1
# and -j 2 outputs are checked to be identical.
# With CALLGRIND=SMALLFILE it then counts with callgrind the instructions of
# script and perfparser at -j 1 and -j 2 on SMALLFILE (a smaller recording
# of the same kind: valgrind is ~50x slower) and prints how many more -j 2
# executes: the work its threads repeat, which bounds -j 2 at
# 2 / (1 + more) even on an idle machine, and which stays steady in an hour
# when the wall times move by a third. Both bounds together: 2 / (tax x
# (1 + more)), tax being the CPU two runs at once cost over the same runs
# apart (printed after the ceiling). Then the same for script at -j 4 and
# -j 8: what each added thread repeats (more threads than
# this machine has cores; valgrind runs one thread at a time anyway).
# Usage: bench/jobs_bench.sh [FILE]   (RUNS=5 by default)
set -u
cd "$(dirname "$0")/.."
RUNS=${RUNS:-5}
TIMEFORMAT='%3R %3U %3S'
S=${SCORCH:-build/scorch}
HP=/usr/lib/x86_64-linux-gnu/libexec/hotspot-perfparser
F=${1:-build/bench/build-dwarf.data}
. bench/lib.sh
bench_build_recording "$F"
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
size=$(stat -c %s "$F")
echo "file: $F ($((size / 1048576)) MB, $("$S" stats -i "$F" | sed -n 's/^samples: //p') samples)"

for j in 1 2; do
	"$S" script -j $j -i "$F" > "$W/s$j" 2> /dev/null
	"$S" perfparser -j $j --input "$F" --output "$W/p$j" 2> /dev/null
done
cmp -s "$W/s1" "$W/s2" && cmp -s "$W/p1" "$W/p2" ||
	{ echo "jobs_bench: -j 1 and -j 2 outputs differ" >&2; exit 1; }
rm -f "$W"/s? "$W"/p?

names=("script -j 1" "script -j 2" "perfparser -j 1" "perfparser -j 2"
       "2 x script -j 1 at once" "hotspot-perfparser")
run() { # INDEX
	case $1 in
	0) "$S" script -j 1 -i "$F" ;;
	1) "$S" script -j 2 -i "$F" ;;
	2) "$S" perfparser -j 1 --input "$F" --output /dev/null ;;
	3) "$S" perfparser -j 2 --input "$F" --output /dev/null ;;
	4) "$S" script -j 1 -i "$F" > /dev/null & "$S" script -j 1 -i "$F" > /dev/null; wait ;;
	5) "$HP" --input "$F" --output /dev/null ;;
	esac
}
n=${#names[@]}
[ -x "$HP" ] || n=5
echo "load before: $(uptime | sed 's/.*load average: //')"
cat "$F" > /dev/null
for r in $(seq "$RUNS"); do
	for i in $(seq 0 $((n - 1))); do
		# wall and CPU in ms from bash's time (GNU time's are in
		# hundredths: 4% of a 0.26 s run), peak RSS from GNU time
		{ time /usr/bin/time -f "%M" -o "$W/t" bash -c "$(declare -f run); S='$S' HP='$HP' F='$F' run $i" \
			> /dev/null 2>&1; } 2> "$W/tt"
		tail -1 "$W/tt" >> "$W/r$i"
		tail -1 "$W/t" >> "$W/m$i"
	done
done
echo "load after:  $(uptime | sed 's/.*load average: //')"
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
printf "%-26s %8s %8s %10s %8s\n" command "wall s" "cpu s" "cpu/wall" "RSS MB"
for i in $(seq 0 $((n - 1))); do
	wall[$i]=$(awk '{print $1}' "$W/r$i" | median)
	cpu[$i]=$(awk '{print $2 + $3}' "$W/r$i" | median)
	rss=$(median < "$W/m$i")
	printf "%-26s %8.3f %8.3f %10.2f %8.1f\n" "${names[$i]}" "${wall[$i]}" "${cpu[$i]}" \
		"$(echo "${cpu[$i]} / ${wall[$i]}" | bc -l)" "$(echo "$rss / 1024" | bc -l)"
done
# what each added thread holds (its session, its tables, the records the
# feed keeps for it): peak RSS at -j 4 and -j 8, one run each
for c in script perfparser; do
	line="peak RSS MB, $c:"
	for j in 1 2 4 8; do
		if [ $c = script ]; then
			/usr/bin/time -f "%M" -o "$W/t" "$S" script -j $j -i "$F" > /dev/null 2>&1
		else
			/usr/bin/time -f "%M" -o "$W/t" "$S" perfparser -j $j --input "$F" --output /dev/null > /dev/null 2>&1
		fi
		line="$line -j $j $(echo "$(tail -1 "$W/t") / 1024" | bc -l | awk '{printf "%.1f", $1}')"
	done
	echo "$line"
done
ratio() { echo "$1 / $2" | bc -l | awk '{printf "%.2f", $1}'; }
# rounds A B: the median and the range of the rounds' wall ratios A / B
# (within a round the two ran back to back, under about the same load)
rounds() {
	paste "$W/r$1" "$W/r$2" | awk '{printf "%.4f\n", $1 / $4}' | sort -n |
		awk '{a[NR]=$1} END {printf "%.2fx (rounds %.2f to %.2f)", a[int((NR+1)/2)], a[1], a[NR]}'
}
echo "script     -j 1 / -j 2 wall: $(ratio "${wall[0]}" "${wall[1]}")x; median of the rounds: $(rounds 0 1)"
echo "perfparser -j 1 / -j 2 wall: $(ratio "${wall[2]}" "${wall[3]}")x; median of the rounds: $(rounds 2 3)"
# two -j 1 at once do twice the work of one in this wall time: 2 x alone / both
# is the most any -j 2 can gain here (cores shared with other work, caches
# and memory bandwidth shared between the two)
# rounds_median A B EXPR: the median over the rounds of an awk EXPR of
# command A's row and command B's ($1-$3: A's wall, user, sys; $4-$6: B's)
rounds_median() {
	paste "$W/r$1" "$W/r$2" | awk "{printf \"%.4f\\n\", $3}" | sort -n |
		awk '{a[NR]=$1} END {printf "%.2f", a[int((NR+1)/2)]}'
}
ceil=$(rounds_median 0 4 '2 * $1 / $4')
echo "machine ceiling for 2 threads (2 x script -j 1 alone / both at once, median of the rounds): ${ceil}x"
# the CPU the same work costs when two runs share the machine: both at once
# / 2 x alone (caches, memory and whatever the host shares between the two
# virtual CPUs); -j 2 pays it too, on top of the work its threads repeat
tax=$(rounds_median 0 4 '($5 + $6) / (2 * ($2 + $3))')
echo "CPU of the same work, two runs at once / apart (median of the rounds): ${tax}x; so -j 2 at most $(echo "2 / $tax" | bc -l | awk '{printf "%.2f", $1}')x even if its threads repeated nothing"
if [ "$n" = 6 ]; then
	echo "hotspot-perfparser / scorch perfparser -j 1: wall $(ratio "${wall[5]}" "${wall[2]}")x, cpu $(ratio "${cpu[5]}" "${cpu[2]}")x"
	echo "hotspot-perfparser / scorch perfparser -j 2: wall $(ratio "${wall[5]}" "${wall[3]}")x, cpu $(ratio "${cpu[5]}" "${cpu[3]}")x"
else
	echo "hotspot-perfparser: not installed, no ratio"
fi
if [ -n "${CALLGRIND:-}" ]; then
	command -v valgrind > /dev/null || { echo "callgrind: valgrind not installed"; exit 0; }
	for c in script perfparser; do
		for j in 1 2; do
			if [ $c = script ]; then
				valgrind --tool=callgrind --callgrind-out-file="$W/cg.out" "$S" script -j $j \
					-i "$CALLGRIND" > /dev/null 2> "$W/cg.log"
			else
				valgrind --tool=callgrind --callgrind-out-file="$W/cg.out" "$S" perfparser -j $j \
					--input "$CALLGRIND" --output /dev/null 2> "$W/cg.log"
			fi
			ins[$j]=$(sed -n 's/.*Collected : //p' "$W/cg.log")
		done
		echo "callgrind $c on $CALLGRIND: -j 1 $(echo "${ins[1]} / 1000000" | bc -l | awk '{printf "%.1f", $1}') M," \
			"-j 2 $(echo "${ins[2]} / 1000000" | bc -l | awk '{printf "%.1f", $1}') M" \
			"(+$(echo "(${ins[2]} - ${ins[1]}) * 100 / ${ins[1]}" | bc -l | awk '{printf "%.1f", $1}')%;" \
			"-j 2 at most $(echo "2 * ${ins[1]} / ${ins[2]}" | bc -l | awk '{printf "%.2f", $1}')x;" \
			"with the CPU tax above $(echo "2 * ${ins[1]} / ${ins[2]} / $tax" | bc -l | awk '{printf "%.2f", $1}')x)"
		[ $c = script ] && ins1=${ins[1]}
	done
	for j in 4 8; do
		valgrind --tool=callgrind --callgrind-out-file="$W/cg.out" "$S" script \
			-j $j -i "$CALLGRIND" > /dev/null 2> "$W/cg.log"
		ins[$j]=$(sed -n 's/.*Collected : //p' "$W/cg.log")
		echo "callgrind script -j $j: $(echo "${ins[$j]} / 1000000" | bc -l | awk '{printf "%.1f", $1}') M" \
			"(+$(echo "(${ins[$j]} - $ins1) * 100 / $ins1" | bc -l | awk '{printf "%.1f", $1}')% over -j 1)"
	done
fi
