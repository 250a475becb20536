#!/bin/bash
# hugeheap.sh: the analysis commands start once more with glibc's huge-page
# heap (glibc.malloc.hugetlb=1, src/util/hugeheap.c), the recorder does not,
# the user's GLIBC_TUNABLES is kept in front and SCORCH_HUGE_HEAP=0 turns it
# off; the output is the same either way. strace -f shows each execve with
# its environment.
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/e2e/lib.sh"
command -v strace > /dev/null || { fail "hugeheap: strace is not installed (scripts/deps.sh installs it)"; exit 0; }
if grep -q '\[never\]' /sys/kernel/mm/transparent_hugepage/enabled 2> /dev/null ||
	[ ! -r /sys/kernel/mm/transparent_hugepage/enabled ]; then
	thp=0 # the kernel gives no huge pages: no second start
else
	thp=1
fi
perf record -q -e cpu-clock -F 999 -g -o "$W/fp.data" -- "$SPIN" 0.3 > /dev/null 2>&1 ||
	"$SCORCH" record -q -g -o "$W/fp.data" -- "$SPIN" 0.3 > /dev/null 2>&1
tr() { strace -f -qq -v -s 1024 -e trace=execve -o "$W/st" "$@"; }
execs() { grep -c 'execve(' "$W/st"; }
selfexec() { grep 'execve("/proc/self/exe"' "$W/st"; }

tr "$SCORCH" script -i "$W/fp.data" > "$W/on.txt" 2> "$W/on.err"
SCORCH_HUGE_HEAP=0 "$SCORCH" script -i "$W/fp.data" > "$W/off.txt" 2> "$W/off.err"
check hugeheap_script_output_same cmp -s "$W/on.txt" "$W/off.txt"
check hugeheap_script_has_samples [ -s "$W/on.txt" ]
if [ $thp = 1 ]; then
	check hugeheap_script_starts_again [ "$(execs)" = 2 ]
	check hugeheap_tunable_set bash -c "grep 'execve(\"/proc/self/exe\"' '$W/st' | grep -q '\"GLIBC_TUNABLES=glibc.malloc.hugetlb=1\"'"
	check hugeheap_argv_kept bash -c "grep 'execve(\"/proc/self/exe\"' '$W/st' | grep -q '\"script\", \"-i\"'"

	GLIBC_TUNABLES=glibc.malloc.arena_max=4 tr "$SCORCH" perfparser --input "$W/fp.data" --output "$W/pp" 2> /dev/null
	check hugeheap_user_tunables_kept bash -c "grep 'execve(\"/proc/self/exe\"' '$W/st' | grep -q 'GLIBC_TUNABLES=glibc.malloc.arena_max=4:glibc.malloc.hugetlb=1\"'"
	check hugeheap_user_tunables_saved bash -c "grep 'execve(\"/proc/self/exe\"' '$W/st' | grep -q 'SCORCH_HUGE_HEAP_ORIG==glibc.malloc.arena_max=4\"'"
else
	check hugeheap_no_thp_no_second_start [ "$(execs)" = 1 ]
fi
SCORCH_HUGE_HEAP=0 tr "$SCORCH" report -i "$W/fp.data" > /dev/null 2>&1
check hugeheap_off_by_env [ "$(execs)" = 1 ]
GLIBC_TUNABLES=glibc.malloc.hugetlb=0 tr "$SCORCH" report -i "$W/fp.data" > /dev/null 2>&1
check hugeheap_user_choice_wins [ "$(execs)" = 1 ]
tr "$SCORCH" record -q -o "$W/r.data" -- true > /dev/null 2>&1
check hugeheap_record_not_again bash -c "! grep -q 'execve(\"/proc/self/exe\"' '$W/st'"
check hugeheap_record_runs_command bash -c "grep -q 'execve(\"/usr/bin/true\"\|execve(\"/bin/true\"' '$W/st'"
