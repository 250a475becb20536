#!/bin/bash
# script_parity.sh: `scorch script` prints what `perf script` (perf 6.1, run
# here on the same file) prints, on every kind of recording:
#   - local recordings, file and pipe format of each: tracepoints (sched,
#     syscalls) with and without call chains, context switches, namespaces,
#     cgroups, a user-only event, hardware breakpoints (SKIP where they do
#     not fire);
#   - the quipper recordings (tests/data/quipper: perf 3.2-4.4, x86_64,
#     i686, ARM, pipe format, raw samples, branch stacks, memory samples).
# Lines may differ only by the kinds tests/tools/script_parity.py lists with
# their reasons (perf naming another machine's kernel with this one's
# symbols, scorch's _start); the summary per file is lines, differing
# lines, kinds. Also: a damaged optional feature is one warning, not fatal;
# AUX area data is named in one warning.
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/e2e/lib.sh"
CMP=$TOP/tests/tools/script_parity.py
if ! command -v perf > /dev/null; then
	echo "SKIP script_parity (no perf)"
	exit 0
fi

compare() { # NAME FILE [--foreign]
	local n=$1 f=$2
	perf script -i "$f" > "$W/perf.txt" 2> /dev/null
	"$SCORCH" script -i "$f" > "$W/scorch.txt" 2> "$W/scorch.err"
	local rc=$?
	if [ $rc != 0 ]; then
		fail "script_parity $n: exit $rc"
		head -3 "$W/scorch.err"
		return
	fi
	if [ ! -s "$W/perf.txt" ]; then
		echo "SKIP script_parity $n (perf script printed nothing)"
		return
	fi
	if python3 "$CMP" "$n" "$W/perf.txt" "$W/scorch.txt" ${3:-} > "$W/r"; then
		pass "script_parity $(head -1 "$W/r" | sed 's/^RESULT //')"
		sed -n '2,$p' "$W/r"
	else
		fail "script_parity $n"
		cat "$W/r"
	fi
}

# ---- local recordings -------------------------------------------------------
WL="for i in 1 2 3 4 5; do ls / > /dev/null; cat /proc/self/stat > /dev/null; sleep 0.01; done"
KINDS=()
rec() { # NAME PERF-RECORD-ARGS...: file and pipe format of one kind, in the background
	local n=$1
	shift
	KINDS+=("$n")
	perf record -q -o "$W/$n.data" "$@" -- sh -c "$WL" > /dev/null 2>&1 &
	perf record -q -o - "$@" -- sh -c "$WL" > "$W/pipe-$n.data" 2> /dev/null &
}
[ -d /sys/kernel/tracing/events ] || mount -t tracefs nodev /sys/kernel/tracing 2> /dev/null
if [ -r /sys/kernel/tracing/events/sched/sched_switch/format ]; then
	rec sched -e sched:sched_switch,sched:sched_wakeup
	rec sched-g -g -e sched:sched_switch
	rec syscalls -e syscalls:sys_enter_openat,syscalls:sys_exit_openat,syscalls:sys_enter_write
	rec syscalls-g -g -e syscalls:sys_enter_openat,syscalls:sys_exit_openat
	rec mixed-g -g -e sched:sched_switch -e cpu-clock
else
	echo "SKIP script_parity tracepoints (no tracefs at /sys/kernel/tracing, not mountable)"
fi
rec switch --switch-events -e cpu-clock
rec namespaces --namespaces -e cpu-clock
rec cgroups --all-cgroups -e cpu-clock
rec user -e cpu-clock:u
rec cpu-clock-g -g -e cpu-clock
cat > "$W/bp.c" << 'EOF'
volatile long counter;
int main(void) { for (long i = 0; i < 2000; i++) counter += i; return 0; }
EOF
bp=0
if cc -O1 -no-pie -fno-pie -o "$W/bp" "$W/bp.c" 2> /dev/null; then
	bp=1
	a=$(nm "$W/bp" | awk '/ counter$/ {print $1}')
	perf record -q -c 10 -e "mem:0x$a:w" -o "$W/bp.data" "$W/bp" > /dev/null 2>&1 &
	perf record -q -c 10 -e "mem:0x$a:w" -o - "$W/bp" > "$W/pipe-bp.data" 2> /dev/null &
fi
wait
for n in "${KINDS[@]}"; do
	compare "local/$n" "$W/$n.data"
	compare "local/pipe-$n" "$W/pipe-$n.data"
done
if [ $bp = 1 ]; then
	if [ -n "$(perf script -i "$W/bp.data" 2> /dev/null | head -1)" ]; then
		compare local/breakpoint "$W/bp.data"
		compare local/pipe-breakpoint "$W/pipe-bp.data"
	else
		echo "SKIP script_parity breakpoint (hardware breakpoints do not fire on this machine)"
	fi
fi

# ---- stacks deeper than perf script's 127 frames, under kernel frames -------
# perf script's --max-stack (default 127) counts a frame-pointer chain's
# kernel and user frames together (the kernel records 127 in all), but a
# DWARF sample's kernel frames (its call chain) and user frames (unwound
# from the stack copy) each on their own: up to 127 of each
build_workload deep_read.c "$W/deep" -O1 -g -fno-omit-frame-pointer -fno-optimize-sibling-calls
perf record -q -e cpu-clock -F 999 -g -o "$W/deep-fp.data" "$W/deep" 0.3 200 > /dev/null 2>&1
perf record -q -e cpu-clock -F 999 --call-graph dwarf,32768 -o "$W/deep-dwarf.data" "$W/deep" 0.3 200 > /dev/null 2>&1
# samples: kernel frames, user frames (most: 127 user frames under the kernel's)
kinds() { awk 'BEGIN { RS = "" } { n = split($0, l, "\n"); k = 0; for (i = 2; i <= n; i++) k += l[i] ~ /kernel\.kallsyms/; print k, n - 1 - k }'; }
for v in fp dwarf; do
	compare "local/deep-$v" "$W/deep-$v.data"
	perf script -i "$W/deep-$v.data" 2> /dev/null | kinds | sort | uniq -c | sort -rn > "$W/k"
	ku=$(awk '$2 > 0 { print $2 + $3; exit }' "$W/k")
	if [ $v = fp ]; then
		check "script_parity deep-$v: perf's chains with kernel frames hold 127 frames in all ($(head -3 "$W/k" | tr -s ' ' | tr '\n' ';'))" [ "${ku:-0}" = 127 ]
	else
		check "script_parity deep-$v: perf's stacks with kernel frames hold 127 user frames ($(head -3 "$W/k" | tr -s ' ' | tr '\n' ';'))" \
			[ "$(awk '$2 > 0 { print $3; exit }' "$W/k")" = 127 ]
	fi
	perf script --max-stack 5 -i "$W/deep-$v.data" > "$W/perf.txt" 2> /dev/null
	"$SCORCH" script --max-frames 5 -i "$W/deep-$v.data" > "$W/scorch.txt" 2> /dev/null
	r=$(python3 "$CMP" "deep-$v-5" "$W/perf.txt" "$W/scorch.txt")
	check "script_parity deep-$v: --max-frames 5 == perf script --max-stack 5 (${r:0:300})" [ $? = 0 ]
done

# ---- a damaged optional feature: one warning, the samples all there --------
if [ -f "$W/switch.data" ]; then
	python3 - "$W/switch.data" "$W/damaged.data" << 'EOF'
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
doff, dsz = struct.unpack_from('<QQ', b, 40)
feats = int.from_bytes(b[72:104], 'little')
k = 0
for bit in range(256):
    if feats >> bit & 1:
        if bit == 8:  # HEADER_CPUDESC: size 0, as a short section
            o, s = struct.unpack_from('<QQ', b, doff + dsz + 16 * k)
            struct.pack_into('<QQ', b, doff + dsz + 16 * k, o, 0)
        k += 1
open(sys.argv[2], 'wb').write(b)
EOF
	"$SCORCH" script -i "$W/damaged.data" > "$W/d.txt" 2> "$W/d.err"
	rc=$?
	"$SCORCH" script -i "$W/switch.data" > "$W/u.txt" 2> /dev/null
	if [ $rc = 0 ] && cmp -s "$W/d.txt" "$W/u.txt" && [ "$(grep -c 'feature cpudesc.*ignored' "$W/d.err")" = 1 ]; then
		pass "script_parity damaged cpudesc: exit 0, every sample, one warning ($(grep cpudesc "$W/d.err"))"
	else
		fail "script_parity damaged cpudesc: exit $rc"
		cat "$W/d.err"
	fi
fi

# ---- AUX area data: said, not silently skipped -----------------------------
if [ -f "$W/pipe-switch.data" ]; then
	python3 - "$W/pipe-switch.data" "$W/aux.data" << 'EOF'
import struct, sys
b = open(sys.argv[1], 'rb').read()
# PERF_RECORD_AUXTRACE: header, size, offset, reference, idx, tid, cpu, reserved; then the data
rec = struct.pack('<IHHQQQIIII', 71, 0, 48, 4096, 0, 0, 0, 0, 0, 0) + bytes(4096)
open(sys.argv[2], 'wb').write(b + rec)
EOF
	"$SCORCH" script -i "$W/aux.data" > "$W/a.txt" 2> "$W/a.err"
	rc=$?
	"$SCORCH" script -i "$W/pipe-switch.data" > "$W/u.txt" 2> /dev/null
	if [ $rc = 0 ] && cmp -s "$W/a.txt" "$W/u.txt" && grep -q 'AUX area data.*4096 bytes of AUXTRACE data skipped' "$W/a.err"; then
		pass "script_parity AUX data: one warning ($(grep AUX "$W/a.err"))"
	else
		fail "script_parity AUX data: exit $rc"
		cat "$W/a.err"
	fi
fi

# ---- quipper: recordings from other machines and perf versions -------------
# Their kernels are not this machine's (2012-2016 kernels): where perf 6.1
# names one with this machine's symbols (it does without a build id: pipe
# mode), scorch prints [unknown]; the kinds say so.
mkdir -p "$W/quipper"
if tar -xJf "$TOP/tests/data/quipper/quipper.tar.xz" -C "$W/quipper" 2> /dev/null; then
	for f in "$W"/quipper/perf.data.*; do
		compare "quipper/${f##*/perf.data.}" "$f" --foreign
	done
	# every output follows the same rule: report and the perfparser stream
	# of a foreign recording are what they are with no kernel symbols at all
	for q in busy.0-3.4 piped.target-3.4; do
		f=$W/quipper/perf.data.$q
		"$SCORCH" report --no-children -i "$f" > "$W/rep1" 2> /dev/null
		"$SCORCH" report --no-children --kallsyms /dev/null -i "$f" > "$W/rep2" 2> /dev/null
		"$SCORCH" perfparser --input "$f" --output "$W/pp1" 2> /dev/null
		"$SCORCH" perfparser --input "$f" --output "$W/pp2" --kallsyms /dev/null 2> /dev/null
		# the stream's strings, but for the one warning that differs
		python3 - "$W/pp1" "$W/pp2" << 'EOF'
import re, sys
def strs(p):
    d = open(p, 'rb').read()
    return {s for s in re.findall(rb'[\x20-\x7e]{4,}', d)
            if b'kernel frames are' not in s and b'kernel symbols' not in s}
sys.exit(0 if strs(sys.argv[1]) == strs(sys.argv[2]) else 1)
EOF
		same_pp=$?
		if [ -s "$W/rep1" ] && cmp -s "$W/rep1" "$W/rep2" && [ $same_pp = 0 ]; then
			pass "script_parity quipper/$q: report and perfparser stream name no kernel symbol"
		else
			fail "script_parity quipper/$q: report or perfparser stream names a foreign kernel"
		fi
	done
else
	fail "script_parity quipper: cannot unpack tests/data/quipper/quipper.tar.xz"
fi
