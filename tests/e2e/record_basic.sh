#!/bin/bash
# record_basic.sh: scorch record against perf's readers: the file from each
# mode (call graphs, writers, compression, pipe, targets) is read by
# perf report --stats, perf script and hotspot-perfparser without complaint
# and shows the workload's samples under the right comm with whole stacks.
. "$(dirname "$0")/lib.sh"

# frame-pointer call graphs, fork + threads (inherit)
"$SCORCH" record -g -o "$T/g.data" -- "$SPIN" 0.4 2 fork 2>"$T/err"
check record_g_exit test $? = 0
check record_g_mode0600 mode_is "$T/g.data" 600
check record_g_perf_stats perf_ok "$T/g.data"
check record_g_perf_script perf_script_has "$T/g.data" record_spin 100
check record_g_perfparser perfparser_ok "$T/g.data"
# complete stacks: spin_leaf <- spin_mid <- spin_outer
n=$(perf script -i "$T/g.data" 2>/dev/null | awk 'BEGIN{RS=""} /spin_leaf/ && /spin_mid/ && /spin_outer/ && /main/{n++} END{print n+0}')
check record_g_stacks test "$n" -ge 50
# inherit: the forked child and the threads are recorded
np=$(perf script -F pid -i "$T/g.data" 2>/dev/null | sort -u | wc -l)
nt=$(perf script -F tid -i "$T/g.data" 2>/dev/null | sort -u | wc -l)
check record_g_inherit_procs test "$np" -ge 2
check record_g_inherit_threads test "$nt" -ge 3
# build ids for the DSOs with samples (the workload and the kernel)
perf buildid-list -i "$T/g.data" > "$T/bids" 2>/dev/null
check record_g_buildid_workload grep -q 'record_spin$' "$T/bids"
check record_g_buildid_kernel grep -q 'kernel.kallsyms' "$T/bids"
# header features perf shows
perf report --header-only -i "$T/g.data" > "$T/hdr" 2>&1
ok=1
for k in 'hostname :' 'os release :' 'arch :' 'nrcpus online :' 'cpudesc :' 'cpuid :' 'total memory :' 'cmdline :' 'event : name = cpu-clock' 'time of first sample' 'clockid frequency'; do
	grep -q "$k" "$T/hdr" || { echo "missing header: $k" >&2; ok=0; }
done
grep -q 'missing features:.*CPU_TOPOLOGY' "$T/hdr" && ok=0
check record_g_features test $ok = 1
# kernel map as perf writes it
perf script --show-mmap-events -i "$T/g.data" 2>/dev/null | grep -m1 'kallsyms' > "$T/kmap"
check record_g_kernel_map grep -qE 'PERF_RECORD_MMAP -1/0: \[0x([0-9a-f]+)\(0x[0-9a-f]+\) @ 0x\1\]: x \[kernel.kallsyms\]_text' "$T/kmap"
# summary line
check record_g_summary grep -qE '^\[ scorch record: Captured and wrote [0-9.]+ MB .*g.data \([0-9]+ samples\) \]' "$T/err"

# the same workload under perf: the same event name and stack shape in perf script
perf record -q -e cpu-clock -g -o "$T/perf.data" -- "$SPIN" 0.3 1 2>/dev/null
"$SCORCH" record -q -e cpu-clock -g -o "$T/s.data" -- "$SPIN" 0.3 1
ev_p=$(perf script -F event -i "$T/perf.data" 2>/dev/null | sort -u)
ev_s=$(perf script -F event -i "$T/s.data" 2>/dev/null | sort -u)
check record_same_event_as_perf test "$ev_p" = "$ev_s"
# (user frames only: a timer interrupt can put kernel frames on top of one
# recording's first such sample and not the other's)
stack_of() { perf script -F ip,sym -i "$1" 2>/dev/null | awk 'BEGIN{RS=""} /spin_leaf/ && /main/{print; exit}' | awk '$1 !~ /^ffff/ {print $2}' | tr '\n' ' '; }
f_p=$(stack_of "$T/perf.data")
f_s=$(stack_of "$T/s.data")
check record_same_stack_as_perf test -n "$f_s" -a "$f_s" = "$f_p"

# DWARF call graphs: perf unwinds them through main
"$SCORCH" record -q --call-graph dwarf -o "$T/d.data" -- "$SPIN" 0.3 1
check record_dwarf_perf_stats perf_ok "$T/d.data"
n=$(perf script -i "$T/d.data" 2>/dev/null | awk 'BEGIN{RS=""} /spin_leaf/ && /main/{n++} END{print n+0}')
check record_dwarf_unwinds test "$n" -ge 50
check record_dwarf_perfparser perfparser_ok "$T/d.data"

# every writer
for io in "--io sync" "--aio" "--aio=4" "--io uring"; do
	name=$(echo "$io" | tr -d ' =-')
	"$SCORCH" record -q $io -g -o "$T/$name.data" -- "$SPIN" 0.2 1
	check "record_writer_${name}_stats" perf_ok "$T/$name.data"
	check "record_writer_${name}_script" perf_script_has "$T/$name.data" record_spin 50
done

# zstd compression
"$SCORCH" record -q -z -g -o "$T/z.data" -- "$SPIN" 0.3 1
check record_z_perf_stats perf_ok "$T/z.data"
check record_z_has_compressed sh -c "perf report --stats -i '$T/z.data' 2>/dev/null | grep -q 'COMPRESSED events'"
check record_z_perf_script perf_script_has "$T/z.data" record_spin 50
perf report --header-only -i "$T/z.data" 2>/dev/null | grep -q 'missing features:.*COMPRESSED' && zf=1 || zf=0
check record_z_feature test $zf = 0

# pipe mode
"$SCORCH" record -q -g -o - -- "$SPIN" 0.3 1 > "$T/pipe.data"
check record_pipe_perf_stats perf_ok "$T/pipe.data"
n=$("$SCORCH" record -q -g -o - -- "$SPIN" 0.3 1 | perf script -i - 2>/dev/null | grep -c spin_leaf)
check record_pipe_perf_script_stdin test "$n" -ge 50
check record_pipe_perfparser perfparser_ok "$T/pipe.data"
"$SCORCH" record -q -z -o - -- "$SPIN" 0.2 1 > "$T/pipez.data"
check record_pipe_z_perf_script perf_script_has "$T/pipez.data" record_spin 30

# existing process (-p), thread (-t); stop with SIGINT once the recording
# holds the samples checked (the workload says when its threads run)
RECORD_SPIN_READY=$T/p.ready "$SPIN" 120 2 & wp=$!
spin_pid "$T/p.ready" > /dev/null
"$SCORCH" record -q -g -p "$wp" -o "$T/p.data" & rp=$!
wait_until 120 at_least 50 script_count "$T/p.data" spin_leaf
kill -INT $rp; wait $rp; rc=$?
check record_p_sigint_exit test $rc = 0
check record_p_perf_stats perf_ok "$T/p.data"
check record_p_perf_script perf_script_has "$T/p.data" record_spin 50
n=$(perf script -i "$T/p.data" 2>/dev/null | grep -c spin_leaf)
check record_p_symbols test "$n" -ge 50
kill $wp 2>/dev/null; wait $wp 2>/dev/null
RECORD_SPIN_READY=$T/t.ready "$SPIN" 120 2 & wp=$!
spin_pid "$T/t.ready" > /dev/null
tid=$(ls /proc/$wp/task | sort -n | tail -1)
"$SCORCH" record -q -t "$tid" -o "$T/t.data" & rp=$!
wait_until 120 at_least 20 script_count "$T/t.data" spin_leaf
kill -INT $rp; wait $rp
t=$(perf script -F tid -i "$T/t.data" 2>/dev/null | sort -u | tr -d ' ')
check record_t_one_thread test "$t" = "$tid"
kill $wp 2>/dev/null; wait $wp 2>/dev/null

# system-wide and -C
"$SCORCH" record -q -a -o "$T/a.data" -- "$SPIN" 0.3 1
check record_a_perf_stats perf_ok "$T/a.data"
check record_a_perf_script perf_script_has "$T/a.data" record_spin 30
"$SCORCH" record -q -C 1 -o "$T/c.data" -- "$SPIN" 0.3 2
c=$(perf script -F cpu -i "$T/c.data" 2>/dev/null | sort -u | tr -d ' []')
check record_C_only_cpu1 test "$c" = "001" -o "$c" = "1"

# other events
"$SCORCH" record -q -e task-clock,page-faults -o "$T/e.data" -- "$SPIN" 0.2 1
ev=$(perf script -F event -i "$T/e.data" 2>/dev/null | tr -d ' :' | LC_ALL=C sort -u | tr '\n' ' ')
check record_e_two_events test "$ev" = "page-faults task-clock "
check record_e_perf_stats perf_ok "$T/e.data"
"$SCORCH" record -q -c 100000 -e task-clock -o "$T/cnt.data" -- "$SPIN" 0.2 1
p=$(perf script -F period -i "$T/cnt.data" 2>/dev/null | sort -u | tr -d ' ')
check record_c_period test "$p" = "100000"

# our own reader agrees with perf on our files (file, -z, pipe)
for f in g z pipe d; do
	s_ours=$("$SCORCH" stats -i "$T/$f.data" 2>/dev/null | awk '/^samples:/{print $2; exit}')
	s_perf=$(samples_of "$T/$f.data")
	check "record_reader_${f}_samples_agree" test -n "$s_ours" -a "$s_ours" = "$s_perf"
	v=$("$SCORCH" stats -i "$T/$f.data" 2>/dev/null | awk '/^time violations:/{print $3}')
	check "record_reader_${f}_ordered" test "$v" = 0
done
# perf script and scorch script print the same text for scorch's files:
# all of it for DWARF; for frame pointers every sample line and every stack
# through the workload's functions (perf prints a looping frame-pointer chain
# in full where scorch's reader stops early: an analyzer matter)
# (except a sample perf prints with no frame at all: one in ld.so's first
# instructions, where perf 6.1's unwinder gives nothing and scorch the frame
# it is in; 2 runs of 60 under load had one. Those are left out of both,
# and there may be at most 2 of them.)
perf script -i "$T/d.data" > "$T/ps0" 2>/dev/null
"$SCORCH" script -i "$T/d.data" > "$T/ss0" 2>/dev/null
awk 'BEGIN{RS=""} split($0, l, "\n") == 1 {print l[1]}' "$T/ps0" > "$T/bare"
without_bare() { # FILE: its samples but those whose header line is in $T/bare
	awk -v bare="$T/bare" 'BEGIN{RS=""; ORS="\n\n"; while ((getline h < bare) > 0) skip[h] = 1}
		{split($0, l, "\n"); if (!(l[1] in skip)) print}' "$1"
}
without_bare "$T/ps0" > "$T/ps"
without_bare "$T/ss0" > "$T/ss"
check record_script_same_text_d test -s "$T/ps" -a -z "$(diff "$T/ps" "$T/ss" | head -1)" \
	-a "$(wc -l < "$T/bare")" -le 2
for f in g pipe; do
	sel='BEGIN{RS=""; ORS="\n\n"} /spin_/ && /main\+/ && split($0, l, "\n") < 40'
	perf script -i "$T/$f.data" 2>/dev/null | awk "$sel" > "$T/ps"
	"$SCORCH" script -i "$T/$f.data" 2>/dev/null | awk "$sel" > "$T/ss"
	check "record_script_same_stacks_$f" test -s "$T/ps" -a -z "$(diff "$T/ps" "$T/ss" | head -1)"
	perf script -i "$T/$f.data" 2>/dev/null | grep -v '^\s' > "$T/ps"
	"$SCORCH" script -i "$T/$f.data" 2>/dev/null | grep -v '^\s' > "$T/ss"
	check "record_script_same_samples_$f" test -s "$T/ps" -a -z "$(diff "$T/ps" "$T/ss" | head -1)"
done
# and scorch script of perf's file names the same events as perf script of ours
ev_sp=$("$SCORCH" script -i "$T/perf.data" 2>/dev/null | awk '/cpu-clock/{for (i = 1; i <= NF; i++) if ($i ~ /cpu-clock/) {print $i; exit}}')
ev_ps=$(perf script -i "$T/s.data" 2>/dev/null | awk '/cpu-clock/{for (i = 1; i <= NF; i++) if ($i ~ /cpu-clock/) {print $i; exit}}')
check record_script_event_names test -n "$ev_sp" -a "$ev_sp" = "$ev_ps"

# tracepoints, with the tracing data perf needs to decode them
if [ -e /sys/kernel/tracing/events/sched/sched_switch/format ] ||
   [ -e /sys/kernel/debug/tracing/events/sched/sched_switch/format ]; then
	"$SCORCH" record -q -e sched:sched_switch -o "$T/tp.data" -- sh -c 'sleep 0.05; sleep 0.05'
	check record_tp_perf_stats perf_ok "$T/tp.data"
	check record_tp_perf_script_decodes sh -c "perf script -i '$T/tp.data' 2>&1 | grep -q 'sched:sched_switch: prev_comm=.* ==> next_comm='"
	"$SCORCH" record -q -e sched:sched_switch -o - -- sh -c 'sleep 0.05; sleep 0.05' > "$T/tpp.data"
	check record_tp_pipe_decodes sh -c "perf script -i '$T/tpp.data' 2>&1 | grep -q 'sched:sched_switch: prev_comm='"
else
	skip record_tp "no tracefs"
fi

# an explicit cycles falls back to cpu-clock without a PMU, as perf does
if ! perf stat -e cycles true 2>&1 | grep -q '[0-9] *cycles'; then
	"$SCORCH" record -e cycles -o "$T/cy.data" -- "$SPIN" 0.2 1 2>"$T/err"
	check record_cycles_fallback_exit test $? = 0
	ev=$(perf script -F event -i "$T/cy.data" 2>/dev/null | sort -u | tr -d ' :')
	check record_cycles_fallback_event test "$ev" = cpu-clock
fi

# hotspot-perfparser on the other shapes: two events, system-wide, no samples
check record_e_perfparser perfparser_ok "$T/e.data"
check record_a_perfparser perfparser_ok_system "$T/a.data" "$SPIN"
v=$("$SCORCH" stats -i "$T/a.data" 2>/dev/null | awk '/^time violations:/{print $3}')
check record_reader_a_ordered test "$v" = 0
# an idle process (no sample): stopped once the recorder has written its file
sleep 120 & sp=$!
"$SCORCH" record -q -p $sp -o "$T/idle.data" & rp=$!
wait_until 120 test -s "$T/idle.data"
kill -INT $rp; wait $rp
check record_idle_perf_stats perf_ok "$T/idle.data"
check record_idle_perfparser perfparser_ok "$T/idle.data"
kill $sp 2>/dev/null; wait $sp 2>/dev/null

# a named pipe gets the pipe format
mkfifo "$T/fifo"
perf script -i - < "$T/fifo" > "$T/fifo.out" 2>/dev/null & pp=$!
"$SCORCH" record -q -g -o "$T/fifo" -- "$SPIN" 0.2 1
wait $pp
n=$(grep -c spin_leaf "$T/fifo.out")
check record_fifo_pipe_format test "$n" -ge 30

# the stress setting (rings hold one sample): busy reader, losses counted
# in the file and in the summary alike
"$SCORCH" record -e cpu-clock -F 20000 --call-graph dwarf,16384 -m 8 -o "$T/st.data" -- "$SPIN" 1 1 2>"$T/err"
check record_stress_perf_stats perf_ok "$T/st.data"
n=$(perf script -i "$T/st.data" 2>/dev/null | grep -c '^record_spin ')
check record_stress_samples test "$n" -ge 200
lost_file=$(perf report -D -i "$T/st.data" 2>/dev/null | sed -n 's/.*PERF_RECORD_LOST: .* lost:\([0-9]*\).*/\1/p' | awk '{s += $1} END{print s + 0}')
lost_sum=$(sed -n 's/.*Lost \([0-9]*\) samples.*/\1/p' "$T/err"); lost_sum=${lost_sum:-0}
check record_stress_lost_reported test "$lost_file" = "$lost_sum"
# how many are lost depends on the machine's load: bench/record_bench.sh
# measures it beside perf

# scorch script of perf's file and perf script of scorch's file show the same
# stack for the same workload (user frames only, as above: a timer
# interrupt put kernel frames on top of one file's first such sample in a
# CI run)
st_sp=$("$SCORCH" script -i "$T/perf.data" 2>/dev/null | awk 'BEGIN{RS=""} /spin_leaf/ && /main/{print; exit}' | awk 'NR > 1 && $1 !~ /^ffff/{sub(/\+0x[0-9a-f]+$/, "", $2); print $2}' | tr '\n' ' ')
st_ps=$(perf script -i "$T/s.data" 2>/dev/null | awk 'BEGIN{RS=""} /spin_leaf/ && /main/{print; exit}' | awk 'NR > 1 && $1 !~ /^ffff/{sub(/\+0x[0-9a-f]+$/, "", $2); print $2}' | tr '\n' ' ')
check record_script_same_stack_cross test -n "$st_sp" -a "$st_sp" = "$st_ps"

# -k/--clockid: perf's names and numbers; the attr and perf's clock features
"$SCORCH" record -q -k mono -e cpu-clock -o "$T/k.data" -- "$SPIN" 0.1 1 2> /dev/null
perf report --header-only -i "$T/k.data" > "$T/khdr" 2>&1
check record_clockid_attr grep -q 'use_clockid = 1.*clockid = 1$' "$T/khdr"
check record_clockid_feature grep -q '^# clockid: monotonic (1)$' "$T/khdr"
"$SCORCH" record -q -k CLOCK_BOOTTIME -e cpu-clock -o "$T/k7.data" -- "$SPIN" 0.1 1 2> /dev/null
perf report --header-only -i "$T/k7.data" 2>&1 | grep -q 'use_clockid = 1.*clockid = 7$'
check record_clockid_name test $? = 0
"$SCORCH" record -q -k nope -o "$T/kx.data" -- true 2> "$T/kerr"
check record_clockid_unknown test $? = 2 -a "$(wc -l < "$T/kerr")" = 1
