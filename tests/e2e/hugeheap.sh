#!/bin/bash
# hugeheap.sh: the analysis commands run on a heap of transparent huge
# pages (src/util/hugeheap.c) and print the same bytes as without it
# (SCORCH_HUGE_HEAP=0); the kernel counts huge-page faults for them.
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/e2e/lib.sh"
perf record -q -e cpu-clock -F 999 --call-graph dwarf -o "$W/dw.data" -- "$SPIN" 0.3 > /dev/null 2>&1 ||
	"$SCORCH" record -q --call-graph dwarf -o "$W/dw.data" -- "$SPIN" 0.3 > /dev/null 2>&1
thp_faults() { awk '/^thp_fault_alloc /{print $2}' /proc/vmstat; }
for cmd in script report perfparser; do
	for h in 1 0; do
		case $cmd in
		perfparser) SCORCH_HUGE_HEAP=$h "$SCORCH" perfparser --input "$W/dw.data" --output "$W/$cmd.$h" 2> "$W/$cmd.$h.err" ;;
		*) SCORCH_HUGE_HEAP=$h "$SCORCH" $cmd -i "$W/dw.data" > "$W/$cmd.$h" 2> "$W/$cmd.$h.err" ;;
		esac
	done
	check "hugeheap_${cmd}_output_nonempty" [ -s "$W/$cmd.1" ]
	check "hugeheap_${cmd}_same_output" cmp -s "$W/$cmd.1" "$W/$cmd.0"
	check "hugeheap_${cmd}_same_messages" cmp -s "$W/$cmd.1.err" "$W/$cmd.0.err"
done
if grep -qE '\[(always|madvise)\]' /sys/kernel/mm/transparent_hugepage/enabled 2> /dev/null; then
	a=$(thp_faults)
	"$SCORCH" script -i "$W/dw.data" > /dev/null 2>&1
	b=$(thp_faults)
	check "hugeheap_script_faults_huge_pages ($a -> $b)" [ "$b" -gt "$a" ]
else
	skip hugeheap_script_faults_huge_pages "the kernel's transparent huge pages are off"
fi
