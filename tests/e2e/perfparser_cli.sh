#!/bin/bash
# perfparser_cli.sh: `scorch perfparser`'s command line against
# hotspot-perfparser's: exit codes (0 no error, 1 TCP error / unknown option,
# 2 cannot open, 4 header error, 5 data error, 6 missing data, 7 invalid
# option value), --help/--version, stdin and --output, --host/--port over
# TCP, and that the reference agrees on each code where it is installed.
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/e2e/lib.sh"
REF=${HOTSPOT_PERFPARSER_REF:-/usr/lib/x86_64-linux-gnu/libexec/hotspot-perfparser}
PP=$TOP/build/scorch-perfparser
DEC=$TOP/tests/tools/perfparser_decode.py
F=$TOP/tests/data/peer/vector_static_gcc/perf.data

# code NAME WANT ARGS...: scorch exits WANT (and so does the reference)
code() {
	local name=$1 want=$2 got rgot=
	shift 2
	"$PP" "$@" > "$W/out" 2> "$W/err" < /dev/null
	got=$?
	if [ -x "$REF" ]; then
		timeout 20 "$REF" "$@" > /dev/null 2>&1 < /dev/null
		rgot=" (hotspot-perfparser: $?)"
	fi
	check "perfparser exit $want: $name: got $got$rgot" [ "$got" = "$want" ]
}

code "no error" 0 --input "$F" --output "$W/o1"
code "unknown option" 1 --bogus
code "missing value" 1 --input
code "input cannot be opened" 2 --input "$W/does-not-exist"
code "output cannot be opened" 2 --input "$F" --output /nonexistent-dir/x
head -c 4096 /dev/urandom > "$W/garbage"
code "bad magic (a header error)" 4 --input "$W/garbage"
: > "$W/empty"
code "empty file (a header error)" 4 --input "$W/empty"
code "invalid --buffer-size" 7 --input "$F" --buffer-size abc
code "invalid --max-buffer-size" 7 --input "$F" --max-buffer-size -3
code "invalid --max-frames" 7 --input "$F" --max-frames x
code "--help" 0 --help
code "--version" 0 --version

# a data error: a record size that runs past the data section
python3 - "$F" "$W/trunc" << 'EOF'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
off, size = struct.unpack_from("<QQ", d, 40)
# corrupt the 3rd record's header size to 4 (smaller than a header)
p = off
for _ in range(2):
    p += struct.unpack_from("<H", d, p + 6)[0]
struct.pack_into("<H", d, p + 6, 4)
open(sys.argv[2], "wb").write(d)
EOF
"$PP" --input "$W/trunc" > "$W/o" 2> /dev/null
rc=$?
check "perfparser exit 5: data error (bad record size): got $rc" [ "$rc" = 5 ]

# no arch in the data (an old pipe file) and an --arch perfparser does not
# know: missing data; an arch in the data wins over --arch
code "no usable architecture (missing data)" 6 --input "$TOP/tests/data/peer/probe.data.stream" --arch foo
code "arch in the data wins over --arch foo" 0 --input "$F" --arch foo

same() { python3 "$DEC" compare "$1" "$2" > "$W/cmp.log" 2>&1 || { cat "$W/cmp.log"; return 1; }; }

# stdin and --output give the same stream as --input
"$PP" --input "$F" > "$W/a" 2> /dev/null
"$PP" < "$F" > "$W/b" 2> /dev/null
"$PP" --input "$F" --output "$W/c" 2> /dev/null
check "perfparser: stdin (file copied through a pipe) == --input" same "$W/b" "$W/a"
check "perfparser: --output == stdout" cmp -s "$W/a" "$W/c"
cat "$F" | "$PP" > "$W/d" 2> /dev/null
check "perfparser: a pipe on stdin == --input" same "$W/d" "$W/a"

# --host/--port: the data from a TCP peer
port=$((20000 + RANDOM % 20000))
python3 - "$F" "$port" "$W/ready" > "$W/srv.log" 2>&1 << 'EOF' &
import socket, sys
data = open(sys.argv[1], "rb").read()
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[2]))); s.listen(1); s.settimeout(30)
open(sys.argv[3], "w").close()
c, _ = s.accept(); c.sendall(data); c.close(); s.close()
EOF
srv=$!
for i in $(seq 1 100); do [ -e "$W/ready" ] && break; sleep 0.05; done
"$PP" --host 127.0.0.1 --port "$port" > "$W/tcp" 2> "$W/tcp.err"
rc=$?
wait $srv
check "perfparser --host/--port: exit $rc" [ "$rc" = 0 ]
check "perfparser --host/--port: same stream as --input" same "$W/tcp" "$W/a"
port2=$((port + 1))
start=$(date +%s)
"$PP" --host 127.0.0.1 --port "$port2" > /dev/null 2>&1
rc=$?
check "perfparser --host with nobody listening: exit 1 (TCP socket error) after retries: got $rc in $(( $(date +%s) - start ))s" [ "$rc" = 1 ]

# --print-stats: the figures hotspot-perfparser prints, to --output too
"$PP" --input "$F" --print-stats --output "$W/st" 2> /dev/null
check "perfparser --print-stats --output: 17 figures" [ "$(grep -c ': [0-9]*$' "$W/st")" = 17 ]
if [ -x "$REF" ]; then
	"$REF" --input "$F" --print-stats > "$W/st.ref" 2> /dev/null
	check "perfparser --print-stats == hotspot-perfparser's" cmp -s "$W/st" "$W/st.ref"
	for bs in 0 1 64; do
		"$PP" --input "$F" --print-stats --buffer-size $bs > "$W/st" 2> /dev/null
		"$REF" --input "$F" --print-stats --buffer-size $bs > "$W/st.ref" 2> /dev/null
		check "perfparser --print-stats --buffer-size $bs == hotspot-perfparser's" cmp -s "$W/st" "$W/st.ref"
	done
fi

# threads for the parser hotspot starts: SCORCH_PERFPARSER_JOBS (what
# `scorch hotspot -j N` sets); -j on the command line still decides
"$PP" --input "$F" --output "$W/j1" 2> /dev/null
# (threads counted as strace sees them made: clone with CLONE_THREAD)
threads() { grep -c CLONE_THREAD "$1"; }
if command -v strace > /dev/null; then
	SCORCH_PERFPARSER_JOBS=2 strace -f -qq -e trace=clone,clone3 -o "$W/j2.st" \
		"$PP" --input "$F" --output "$W/j2" 2> /dev/null
	check "perfparser with SCORCH_PERFPARSER_JOBS=2 runs 2 threads ($(threads "$W/j2.st") made)" \
		[ "$(threads "$W/j2.st")" -ge 2 ]
	check "perfparser with SCORCH_PERFPARSER_JOBS=2: the same stream" cmp -s "$W/j1" "$W/j2"
	SCORCH_PERFPARSER_JOBS=2 strace -f -qq -e trace=clone,clone3 -o "$W/j3.st" \
		"$PP" -j 1 --input "$F" --output "$W/j3" 2> /dev/null
	check "perfparser -j 1 wins over SCORCH_PERFPARSER_JOBS ($(threads "$W/j3.st") threads made)" \
		[ "$(threads "$W/j3.st")" = 0 ]
else
	skip "perfparser SCORCH_PERFPARSER_JOBS threads" "no strace"
fi
SCORCH_PERFPARSER_JOBS=x "$PP" --input "$F" --output "$W/j4" > /dev/null 2> "$W/j4.err" < /dev/null
check "perfparser with SCORCH_PERFPARSER_JOBS=x: exit 7, as a bad -j" [ $? = 7 ]
printf '#!/bin/sh\necho "J=$SCORCH_PERFPARSER_JOBS ARGS=$*"\n' > "$W/fake-hotspot"
chmod +x "$W/fake-hotspot"
out=$(HOTSPOT=$W/fake-hotspot "$TOP/build/scorch" hotspot -j 2 "$F" --some-option 2>&1)
check "scorch hotspot -j 2 FILE: SCORCH_PERFPARSER_JOBS=2 for hotspot's parser, FILE and options passed ($out)" \
	test "$out" = "J=2 ARGS=--some-option $F"
out=$(HOTSPOT=$W/fake-hotspot "$TOP/build/scorch" hotspot --jobs=3 "$F" 2>&1)
check "scorch hotspot --jobs=3 ($out)" test "$out" = "J=3 ARGS=$F"
HOTSPOT=$W/fake-hotspot "$TOP/build/scorch" hotspot -j 0 "$F" > /dev/null 2> "$W/hs.err"
rc=$?
check "scorch hotspot -j 0: exit 2, one line ($(cat "$W/hs.err"))" test $rc = 2 -a "$(wc -l < "$W/hs.err")" = 1
