#!/bin/bash
# live_continuous.sh: scorch record --continuous. Every interval gives a
# pprof file DIR/<host>-<start>.pb.gz that go tool pprof reads, with host,
# comm, pid and tid labels and the interval as time and duration; --keep
# bounds the files; with --keep-raw each interval's recording sits beside
# its profile and `scorch report` on it finds the same hottest functions
# with the same sample counts. --push sends each profile to a local
# Pyroscope-compatible receiver (tests/tools/pyroscope_receiver.py) that
# checks every request and validates the body with go tool pprof, also when
# the receiver is down for a while and when it answers 503.
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/e2e/lib.sh"
WL=$TOP/build/workloads
RECV=$TOP/tests/tools/pyroscope_receiver.py
if ! command -v go > /dev/null; then
	echo "SKIP live_continuous (go not installed: scripts/deps.sh)"
	exit 0
fi
host=$(hostname | tr -c 'A-Za-z0-9._\n-' '_')

# --- files, --keep, --keep-raw ---
D=$W/prof
"$SCORCH" record --continuous "$D" --interval 1 --keep 3 --keep-raw -e cpu-clock -F 499 -g \
	-- "$WL/calls-fp" 4500 > /dev/null 2> "$W/c.err"
check cont_exit test $? = 0
check cont_summary grep -qE '^\[ scorch record: [0-9]+ profiles in .*, [0-9]+ samples, [0-9]+ lost \]' "$W/c.err"
np=$(ls "$D"/*.pb.gz 2>/dev/null | wc -l)
nw=$(grep -c '^\[ scorch record: wrote ' "$W/c.err")
check "cont_keep_3 ($np files, $nw written)" test "$np" = 3 -a "$nw" -ge 4
check cont_names bash -c "ls '$D' | grep -vxE '$host-[0-9]{8}T[0-9]{6}(\.[0-9]{3})?Z\.(pb\.gz|data)' | grep -c . | grep -qx 0"
check cont_raw_kept test "$(ls "$D"/*.data 2>/dev/null | wc -l)" = 3
check cont_no_tmp bash -c "! ls '$D' | grep -q tmp"
ok=1
for f in "$D"/*.pb.gz; do
	go tool pprof -raw "$f" > "$W/raw" 2> "$W/raw.err" || { echo "go tool pprof failed on $f: $(cat "$W/raw.err")" >&2; ok=0; continue; }
	grep -q '^Comment: scorch record --continuous' "$W/raw" || ok=0
	grep -q "host:\[$host\]" "$W/raw" || { echo "$f: no host label" >&2; ok=0; }
	grep -q 'comm:\[calls-fp\]' "$W/raw" || { echo "$f: no comm label" >&2; ok=0; }
	grep -qE 'pid:\[[0-9]+\] tid:\[[0-9]+\]' "$W/raw" || { echo "$f: no pid/tid labels" >&2; ok=0; }
	# the profile's time is the interval's start (the name), to the second
	stamp=$(basename "$f" | sed -E 's/^.*-([0-9]{8})T([0-9]{2})([0-9]{2})([0-9]{2}).*$/\1 \2:\3:\4/')
	t=$(sed -n 's/^Time: \([0-9-]*\) \([0-9:]*\)\..*/\1 \2/p' "$W/raw" | tr -d -)
	[ "$t" = "$stamp" ] || { echo "$f: Time $t, name $stamp" >&2; ok=0; }
	grep -qE '^Duration: ' "$W/raw" || ok=0
done
check cont_pprof_readable test $ok = 1
# the full intervals last about 1 s (the last one ends with the command;
# the workloads run for CPU time: several seconds, so an idle machine too
# gives more intervals than --keep keeps)
dur=$(go tool pprof -raw "$(ls "$D"/*.pb.gz | head -1)" 2>/dev/null | sed -n 's/^Duration: //p')
check "cont_duration ($dur)" bash -c "echo '$dur' | grep -qE '^(1(\.[0-9]+)?s?|9[0-9]{2}(\.[0-9]*)?(ms)?)$'"

# pprof of an interval vs scorch report on that interval's recording:
# the same hottest functions with the same sample counts
cmp_report() { # PB DATA
	go tool pprof -noinlines -sample_index=samples -top -nodecount=8 "$1" 2>/dev/null > "$W/pt"
	"$SCORCH" report -i "$2" --no-children -s sym -n --top 8 --tree 0 -w 200 > "$W/rt" 2> /dev/null
	python3 - "$W/pt" "$W/rt" <<'PY'
import re, sys
pp = {}
for l in open(sys.argv[1]):
    m = re.match(r"^\s*(\d+)\s+[\d.]+%\s+[\d.]+%\s+\d+\s+[\d.]+%\s+(.+?)\s*$", l)
    if m:
        pp[m.group(2)] = int(m.group(1))
rep = []
for l in open(sys.argv[2]):
    m = re.match(r"^\s*[\d.]+%\s+(\d+)\s+\[.\]\s+(.+?)\s*$", l)
    # unknown symbols: an address in report, the DSO in pprof
    if m and not m.group(2).startswith("0x"):
        rep.append((m.group(2), int(m.group(1))))
if not rep:
    sys.exit("no entries: pprof %d, report %d" % (len(pp), len(rep)))
for name, n in rep[:3]:
    if pp.get(name) != n:
        sys.exit("%s: report %d samples, pprof %s" % (name, n, pp.get(name)))
print("top 3:", rep[:3])
PY
}
for f in "$D"/*.pb.gz; do
	check "cont_matches_report $(basename "$f")" cmp_report "$f" "${f%.pb.gz}.data"
done

# --- bad options ---
"$SCORCH" record --interval 5 -a > /dev/null 2> "$W/b1"
check cont_interval_needs_dir test $? = 2
"$SCORCH" record --continuous "$W/x" --push https://example.com -a > /dev/null 2> "$W/b2"
check cont_push_https_refused test $? = 2
check cont_push_https_msg grep -q 'not an http://' "$W/b2"

# --- push: a receiver that is down for 2.5 s, then answers 503 once ---
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
mkdir -p "$W/recv"
python3 "$RECV" --port "$port" --app myapp --host "$host" --out "$W/recv" --prefix /pyro \
	--down 2.5 --fail 1 --max-span 10 > "$W/recv.out" 2>&1 &
rpid=$!
P=$W/pushd
"$SCORCH" record --continuous "$P" --interval 1 --push "http://127.0.0.1:$port/pyro/" --push-app myapp \
	-e cpu-clock -F 299 -g -- "$WL/calls-fp" 4000 > /dev/null 2> "$W/p.err"
check push_exit test $? = 0
written=$(grep -c '^\[ scorch record: wrote ' "$W/p.err")
okn=$(grep -c '^OK ' "$W/recv/receiver.log")
# every body received is validated (go tool pprof) before the receiver goes
for ((i = 0; i < 600; i++)); do
	[ "$(grep -cE '^(VALID|BAD) ' "$W/recv/receiver.log")" -ge "$okn" ] && break
	sleep 0.2
done
kill $rpid 2>/dev/null
wait $rpid 2>/dev/null
valid=$(grep -c '^VALID ' "$W/recv/receiver.log")
bad=$(grep -c '^BAD ' "$W/recv/receiver.log")
check "push_bodies_valid ($valid of $okn)" test "$valid" = "$okn"
check "push_all_delivered ($okn of $written)" test "$okn" = "$written" -a "$written" -ge 3
check "push_no_bad_request ($bad)" test "$bad" = 0
check push_was_down grep -q '^FAILED-ON-PURPOSE 1' "$W/recv/receiver.log"
check push_retried grep -q 'push: error [0-9]*, retrying\|push: HTTP 503, retrying' "$W/p.err"
check push_summary grep -qE "pushed $written, dropped 0, given up 0 \]" "$W/p.err"
# samples arrived: the sum over the pushed profiles is the recorder's count
tot=$(awk '/^VALID /{s+=$3} END{print s+0}' "$W/recv/receiver.log")
check "push_samples ($tot stacks)" test "$tot" -gt 10
[ "$okn" = "$written" ] || { cat "$W/recv/receiver.log" "$W/recv.out" "$W/p.err"; } >&2

# --- push: a receiver that never comes up: recording goes on, bounded ---
port2=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$SCORCH" record --continuous "$W/never" --interval 1 --push "http://127.0.0.1:$port2" \
	-e cpu-clock -F 99 -- "$WL/calls-fp" 1200 > /dev/null 2> "$W/n.err"
check push_down_exit test $? = 0
nw=$(grep -c '^\[ scorch record: wrote ' "$W/n.err")
check "push_down_records_on ($nw profiles)" test "$nw" -ge 2
check push_down_summary grep -qE 'pushed 0, dropped [0-9]+, given up [0-9]+ \]' "$W/n.err"
