#!/bin/bash
# annotate_bench.sh: scorch annotate next to perf annotate --stdio on the
# same symbols, in one run: the top N symbols (default 10) of a recording
# by scorch annotate's order (user-space symbols perf can annotate: the
# kernel's need a vmlinux perf may not have).
#   bench/annotate_bench.sh [FILE] [N]   default FILE: record a parallel
#                                        build of this tree (bench/lib.sh)
# perf annotate takes one symbol a run (it disassembles with objdump per
# symbol); scorch annotates all N in one run. Prints both times and the
# ratio.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP" || exit 1
. bench/lib.sh
S=${SCORCH:-$TOP/build/scorch}
f=${1:-build/bench/build.data}
n=${2:-10}
bench_build_recording "$f"
W=$(mktemp -d /tmp/scorch-abench.XXXXXX)
trap 'rm -rf "$W"' EXIT
echo "file: $f ($(du -h "$f" | cut -f1), $("$S" stats -i "$f" | sed -n 's/^samples: //p') samples)"
"$S" annotate -i "$f" --percent-limit 0 -q > "$W/all" 2> /dev/null
# NAME<TAB>DSO of the first N disassembled user-space symbols
python3 tests/tools/annotate_check.py syms "$W/all" "$n" | cut -f1,2 > "$W/syms"
echo "symbols: $(cut -f1 "$W/syms" | tr '\n' ' ')"
mapfile -t names < <(cut -f1 "$W/syms")
ms() { echo $(( ($2 - $1) / 1000000 )); }
s=$(date +%s%N)
"$S" annotate -i "$f" -q "${names[@]}" > "$W/scorch.out" 2> /dev/null
e=$(date +%s%N)
t_scorch=$(ms "$s" "$e")
s=$(date +%s%N)
while IFS=$'\t' read -r name dso; do
	perf annotate -i "$f" --stdio -d "$(basename "$dso")" "$name" > /dev/null 2>&1
done < "$W/syms"
e=$(date +%s%N)
t_perf=$(ms "$s" "$e")
printf '%-40s %9.3f s\n' "scorch annotate (${#names[@]} symbols)" "$(echo "$t_scorch / 1000" | bc -l)"
printf '%-40s %9.3f s\n' "perf annotate --stdio (one run each)" "$(echo "$t_perf / 1000" | bc -l)"
printf '%-40s %9.2f\n' "perf / scorch" "$(echo "$t_perf / ($t_scorch + 0.001)" | bc -l)"
