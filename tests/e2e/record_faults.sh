#!/bin/bash
# record_faults.sh: faults during recording leave a valid file: SIGINT and
# SIGTERM mid-run, a crashing or failing command, a full disk (small tmpfs),
# RLIMIT_FSIZE, a reader that closes the pipe; bad flags and impossible
# requests give one line and exit status 2; --switch-output files are each
# complete.
. "$(dirname "$0")/lib.sh"

# SIGINT / SIGTERM: stop, drain, header written, workload stopped. The
# signal comes once the recording holds the samples checked (its header is
# rewritten every second); the workload says it runs, and its pid, in a file.
for sig in INT TERM; do
	rm -f "$T/sig.ready"
	RECORD_SPIN_READY=$T/sig.ready "$SCORCH" record -q -g -o "$T/sig.data" -- "$SPIN" 120 1 & rp=$!
	wp=$(spin_pid "$T/sig.ready")
	wait_until 120 at_least 50 script_count "$T/sig.data" '^ *record_spin +[0-9]'
	kill -$sig $rp; wait $rp; rc=$?
	check record_sig${sig}_exit test $rc = 0
	check record_sig${sig}_perf_stats perf_ok "$T/sig.data"
	check record_sig${sig}_samples perf_script_has "$T/sig.data" record_spin 50
	check "record_sig${sig}_workload_gone (pid ${wp:-none})" spin_gone "${wp:-0}"
	[ -n "$wp" ] && kill "$wp" 2> /dev/null
done

# SIGKILL: no chance to finish, yet the header refreshed every second makes
# the file readable up to a round written before the kill: killed once perf
# reads the samples checked from the file being written
RECORD_SPIN_READY=$T/k9.ready "$SCORCH" record -q -g -o "$T/k9.data" -- "$SPIN" 120 1 & rp=$!
wp=$(spin_pid "$T/k9.ready")
wait_until 120 at_least 100 script_count "$T/k9.data" '^ *record_spin +[0-9]'
kill -KILL $rp; wait $rp 2>/dev/null
# the workload outlives its recorder: end it by the pid it wrote
[ -n "$wp" ] && kill "$wp" 2> /dev/null
check record_sigkill_perf_stats perf_ok "$T/k9.data"
check record_sigkill_samples perf_script_has "$T/k9.data" record_spin 100

# a crashing command: complete file, status reported
"$SCORCH" record -g -o "$T/crash.data" -- "$SPIN" 0.2 1 crash 2>"$T/err"
check record_crash_exit test $? = 0
check record_crash_reported grep -q 'terminated by signal 11' "$T/err"
check record_crash_perf_stats perf_ok "$T/crash.data"
check record_crash_samples perf_script_has "$T/crash.data" record_spin 20
"$SCORCH" record -o "$T/exit3.data" -- "$SPIN" 0.1 1 exit3 2>"$T/err"
check record_exit3_reported grep -q 'exited with status 3' "$T/err"
check record_exit3_perf_stats perf_ok "$T/exit3.data"

# a full disk: a clear error naming the file, the file valid up to the last round
if mkdir -p "$T/small" && mount -t tmpfs -o size=1m tmpfs "$T/small" 2>/dev/null; then
	RECORD_SPIN_READY=$T/full.ready "$SCORCH" record --call-graph dwarf -o "$T/small/full.data" -- "$SPIN" 2 1 2>"$T/err"
	rc=$?
	check record_enospc_exit test $rc = 1
	check record_enospc_message grep -q "full.data: No space left on device" "$T/err"
	check record_enospc_perf_stats perf_ok "$T/small/full.data"
	check record_enospc_samples perf_script_has "$T/small/full.data" record_spin 10
	wp=$(cat "$T/full.ready" 2> /dev/null)
	check "record_enospc_no_workload (pid ${wp:-none})" spin_gone "${wp:-0}"
	umount "$T/small"
else
	skip record_enospc "cannot mount tmpfs"
fi

# RLIMIT_FSIZE: EFBIG, same guarantees
(ulimit -f 512; exec "$SCORCH" record --call-graph dwarf -o "$T/big.data" -- "$SPIN" 2 1 2>"$T/err")
rc=$?
check record_efbig_exit test $rc = 1
check record_efbig_message grep -q "big.data: File too large" "$T/err"
check record_efbig_perf_stats perf_ok "$T/big.data"
check record_efbig_samples perf_script_has "$T/big.data" record_spin 10

# a reader that goes away: EPIPE reported, no hang (the recording stops at
# once, not when the 600 s workload ends: timeout's 124 is a hang), workload
# stopped
RECORD_SPIN_READY=$T/ep.ready timeout 300 "$SCORCH" record -g -o - -- "$SPIN" 600 1 2>"$T/err" | head -c 4096 >/dev/null
rc=${PIPESTATUS[0]}
check "record_epipe_exit (rc $rc)" test $rc = 1
check record_epipe_message grep -q -- "-: Broken pipe" "$T/err"
wp=$(cat "$T/ep.ready" 2> /dev/null)
check "record_epipe_no_workload (pid ${wp:-none})" spin_gone "${wp:-0}"

# --switch-output: SIGUSR2 rotates; every file stands alone
mkdir -p "$T/sw"
# (each signal once the file being written holds the samples checked)
"$SCORCH" record -q -g --switch-output -o "$T/sw/out.data" -- "$SPIN" 120 1 & rp=$!
wait_until 120 at_least 20 script_count "$T/sw/out.data" spin_leaf
kill -USR2 $rp
rotated() { ls "$T/sw" | grep -q '^out.data.[0-9]\{16\}$'; }
wait_until 120 rotated
wait_until 120 at_least 20 script_count "$T/sw/out.data" spin_leaf
kill -INT $rp; wait $rp
n=$(ls "$T/sw" | grep -c '^out.data.[0-9]\{16\}$')
check record_switch_signal_files test "$n" = 2
for f in "$T"/sw/out.data.*; do
	b=$(basename "$f")
	check "record_switch_signal_stats_$b" perf_ok "$f"
	n=$(perf script -i "$f" 2>/dev/null | grep -c spin_leaf)
	check "record_switch_signal_symbols_$b" test "$n" -ge 20
done
rm -rf "$T/sw"; mkdir -p "$T/sw"
"$SCORCH" record -q --call-graph dwarf --switch-output=1M -o "$T/sw/sz.data" -- "$SPIN" 0.6 1
n=$(ls "$T/sw" | grep -c '^sz.data.')
check record_switch_size_files test "$n" -ge 2
ok=1; for f in "$T"/sw/sz.data.*; do perf_ok "$f" || ok=0; done
check record_switch_size_all_valid test $ok = 1

rm -rf "$T/sw"; mkdir -p "$T/sw"
"$SCORCH" record -q --switch-output=1s -o "$T/sw/tm.data" -- "$SPIN" 1.5 1
n=$(ls "$T/sw" | grep -c '^tm.data.')
check record_switch_time_files test "$n" -ge 2
ok=1; for f in "$T"/sw/tm.data.*; do perf_ok "$f" || ok=0; done
check record_switch_time_all_valid test $ok = 1

# an unprivileged user: the default event drops to user space (as perf's
# does) and records; -a is refused with the paranoid setting named
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null && [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -ge 2 ]; then
	nb="setpriv --reuid=65534 --regid=65534 --clear-groups"
	d=$(mktemp -d /tmp/scorch-nobody.XXXXXX); chmod 777 "$d"
	# copies the user can run: the checkout may be where nobody cannot
	# look (a clone under /root, mode 700)
	cp "$SCORCH" "$d/scorch"; cp "$SPIN" "$d/record_spin"; chmod 755 "$d/scorch" "$d/record_spin"
	$nb "$d/scorch" record -q -o "$d/nb.data" -- "$d/record_spin" 0.3 1
	check record_nobody_exit test $? = 0
	check record_nobody_owner test "$(stat -c %U:%a "$d/nb.data")" = "nobody:600"
	chown root "$d/nb.data"
	check record_nobody_samples perf_script_has "$d/nb.data" record_spin 30
	$nb "$d/scorch" record -a -o "$d/nba.data" -- true 2>"$T/err"
	rc=$?
	check record_nobody_a_refused test $rc = 2 -a "$(wc -l < "$T/err")" = 1
	check record_nobody_a_paranoid grep -q 'perf_event_paranoid is' "$T/err"
	rm -rf "$d"
fi

# bad flags and impossible requests: one line, exit 2, no file
bad() { # NAME ARGS...
	local n=$1; shift
	rm -f "$T/bad.data"
	"$SCORCH" record -o "$T/bad.data" "$@" >"$T/out" 2>"$T/err"
	local rc=$? lines
	lines=$(wc -l < "$T/err")
	if [ $rc = 2 ] && [ "$lines" = 1 ] && [ ! -e "$T/bad.data" ]; then pass "$n"; else
		fail "$n" "rc=$rc lines=$lines: $(head -3 "$T/err")"; fi
}
bad record_bad_option --bogus -- true
bad record_bad_m_pow2 -m 3 -- true
bad record_bad_event -e no-such-event -- true
bad record_bad_freq -F abc -- true
bad record_bad_aio --aio=99 -- true
bad record_bad_io --io floppy -- true
bad record_bad_callgraph --call-graph xyz -- true
bad record_bad_no_target
bad record_bad_pid -p 999999999
bad record_bad_command -- /nonexistent/command
bad record_bad_switch --switch-output=soon -- true
bad record_bad_switch_device --switch-output -o /dev/null -- true
check record_switch_device_kept test -c /dev/null
bad record_bad_missing_value -o
bad record_bad_realtime -r 100 -- true

# io_uring unavailable (seccomp says ENOSYS): the default falls back to POSIX
# AIO and the file is as good
NORING=$TOP/build/workloads/record_noring
"$NORING" "$SCORCH" record -g -o "$T/nr.data" -- "$SPIN" 0.2 1 2>"$T/err"
check record_fallback_aio grep -q '(posix-aio writer)' "$T/err"
check record_fallback_perf_stats perf_ok "$T/nr.data"
check record_fallback_samples perf_script_has "$T/nr.data" record_spin 30
"$NORING" "$SCORCH" record --io uring -o "$T/nr2.data" -- "$SPIN" 0.1 1 2>"$T/err"
check record_fallback_asked_uring grep -q '(posix-aio writer)' "$T/err"
