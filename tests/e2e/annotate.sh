#!/bin/bash
# annotate.sh: scorch annotate against perf 6.1's `perf annotate --stdio`
# and objdump on recordings made here of tests/workloads/annotate_hot.c,
# built with frame pointers (-O1 -fno-inline) and -O2 -g (an inlined
# helper): per-instruction sample counts of the top symbols equal perf's,
# the instruction text is objdump's (AT&T and -M intel) for >= 99% of the
# instructions shown, the source lines and the inlined function appear,
# and a missing, rebuilt, stripped or cut binary gets a one-line reason with
# exit status 0.
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/e2e/lib.sh"
CHK="python3 $TOP/tests/tools/annotate_check.py"
S=$SCORCH
command -v perf > /dev/null || { skip "annotate" "no perf"; exit 0; }
command -v objdump > /dev/null || { skip "annotate" "no objdump"; exit 0; }

build_workload annotate_hot.c "$W/fp" -O1 -g -fno-omit-frame-pointer -fno-inline
build_workload annotate_hot.c "$W/inl" -O2 -g

# (and the C++ workload, DWARF call graphs: the comparison with perf
# annotate and objdump only)
for v in fp inl cxx; do
	D=$W/$v.data
	bin=$W/$v args=() rec=(-F 4000 -g)
	if [ $v = cxx ]; then
		bin=$TOP/build/workloads/cxx args=(150 2) rec=(-F 2000 --call-graph dwarf,8192)
		[ -x "$bin" ] || { skip "annotate cxx" "no $bin (make)"; continue; }
	fi
	# -N: no copy in perf's build-id cache, where scorch would find the
	# binary removed or rebuilt below
	if ! perf record -q -N -e cpu-clock "${rec[@]}" -o "$D" "$bin" "${args[@]}" > /dev/null 2> "$W/rec.err"; then
		skip "annotate $v" "perf record failed: $(head -1 "$W/rec.err")"
		continue
	fi
	"$S" annotate -i "$D" -n --percent-limit 0 > "$W/$v.s" 2> "$W/$v.err"
	rc=$?
	nerr=$(wc -l < "$W/$v.err")
	check "annotate $v: runs (exit $rc, $nerr lines on stderr)" [ "$rc$nerr" = 00 ]
	$CHK syms "$W/$v.s" 5 > "$W/$v.syms"
	if [ $v = cxx ]; then
		check "annotate cxx: C++ functions annotated ($(cut -f1 "$W/$v.syms" | grep -c '::') of 5)" grep -q '::' "$W/$v.syms"
	else
		check "annotate $v: hot_loop annotated" grep -qP '^hot_loop\t' "$W/$v.syms"
	fi
	same=0 all=0 notes=
	while IFS=$'\t' read -r name dso first last; do
		perf annotate -i "$D" --stdio -n -d "$(basename "$dso")" "$name" > "$W/p.txt" 2> /dev/null
		check "annotate $v: $name per-instruction samples == perf annotate ($($CHK counts "$W/$v.s" "$W/p.txt" "$name" | head -c 300))" \
			$CHK counts "$W/$v.s" "$W/p.txt" "$name"
		objdump -d --no-show-raw-insn --start-address=0x$first --stop-address=$((0x$last + 16)) "$dso" > "$W/o.txt"
		$CHK text "$W/$v.s" "$W/o.txt" "$name" 0 > "$W/t.txt"
		read -r s a < <(sed -nE 's/.*: ([0-9]+) of ([0-9]+) instructions as objdump.*/\1 \2/p' "$W/t.txt")
		same=$((same + s)) all=$((all + a))
		grep -qE '%\); |left out' "$W/t.txt" && notes="$notes $(head -c 200 "$W/t.txt")"
	done < "$W/$v.syms"
	check "annotate $v: instruction text of the top symbols == objdump for >= 99% ($same of $all)${notes:+; differences:$notes}" \
		[ "$all" -gt 0 -a $((same * 100)) -ge $((all * 99)) ]
	[ $v = cxx ] && continue
	# report --sort srcline, sym,srcline: the shares of perf report's
	for k in srcline sym,srcline; do
		"$S" report -i "$D" --no-children --sort $k --top 0 > "$W/rs.txt"
		perf report -i "$D" --stdio --no-children --sort $k -g none > "$W/ps.txt" 2> /dev/null
		check "report $v --sort $k == perf report ($($CHK srcline "$W/rs.txt" "$W/ps.txt" 0.5))" \
			$CHK srcline "$W/rs.txt" "$W/ps.txt" 0.5
	done
	# Intel syntax
	"$S" annotate -i "$D" -M intel hot_loop > "$W/$v.si"
	IFS=$'\t' read -r name dso first last < <(grep -P '^hot_loop\t' "$W/$v.syms")
	objdump -d -M intel --no-show-raw-insn --start-address=0x$first --stop-address=$((0x$last + 16)) "$dso" > "$W/oi.txt"
	check "annotate $v -M intel: text == objdump -M intel ($($CHK text "$W/$v.si" "$W/oi.txt" hot_loop 99 | head -c 200))" \
		$CHK text "$W/$v.si" "$W/oi.txt" hot_loop 99
done

# source lines: the hottest lines are the loop bodies', and the inlined
# helper shows under hot_loop in the -O2 build
if [ -s "$W/inl.s" ]; then
	# (the loop's own line, 20, holds a share of the same order: skid)
	awk '/^## hot_loop /{s = 1} s && /^## hottest lines/{h = 1; next} h && /^## /{print; n++} n == 4 {exit}' "$W/inl.s" > "$W/hot.lines"
	check "annotate inl: the 4 hottest lines of hot_loop have mix's three shifts ($(tr -s ' ' < "$W/hot.lines" | tr '\n' '|'))" \
		[ "$(grep -cE 'annotate_hot.c:(12|13|14)  x \^= x' "$W/hot.lines")" = 3 ]
	check "annotate inl: mix() shown as inlined into hot_loop" grep -q '^         :  mix() inlined at annotate_hot.c:' "$W/inl.s"
	"$S" annotate -i "$W/inl.data" --no-source hot_loop > "$W/ns"
	check "annotate --no-source: no source lines" [ "$(grep -c '^         :' "$W/ns")" = 0 ]
	"$S" annotate -i "$W/inl.data" --asm-raw hot_loop > "$W/raw"
	check "annotate --asm-raw: instruction bytes shown" grep -qE '^ +[0-9.]+ : +[0-9a-f]+:   ([0-9a-f]{2} )+ +[a-z]' "$W/raw"
	"$S" annotate -i "$W/inl.data" --percent-type global-hits -s warm > "$W/gh"
	check "annotate -s warm: only warm" [ "$(grep -c '^## .*  \[' "$W/gh")" = 1 ]
	"$S" annotate -i "$W/inl.data" --percent-type bogus > /dev/null 2>&1
	check "annotate --percent-type bogus: exit 2" [ $? = 2 ]

	# sources that moved: --prefix and --prefix-strip find the line text
	# (a build from a copy of the source, which then moves elsewhere)
	mkdir -p "$W/pfx/old" "$W/pfx/new"
	cp "$WL_SRC/annotate_hot.c" "$W/pfx/old/"
	gcc -O2 -g -o "$W/pfxbin" "$W/pfx/old/annotate_hot.c"
	if perf record -q -N -e cpu-clock -F 2000 -o "$W/pfx.data" "$W/pfxbin" > /dev/null 2>&1; then
		mv "$W/pfx/old/annotate_hot.c" "$W/pfx/new/"
		depth=$(tr -cd / <<< "$W/pfx/old" | wc -c)
		hot='annotate_hot.c:1[234]  x \^= x'
		"$S" annotate -i "$W/pfx.data" hot_loop > "$W/pfx0"
		"$S" annotate -i "$W/pfx.data" --prefix "$W/pfx/new" --prefix-strip "$depth" hot_loop > "$W/pfx1"
		"$S" annotate -i "$W/pfx.data" --prefix "$W/pfx/new" --prefix-strip 1 hot_loop > "$W/pfx2"
		n0=$(grep -cE "$hot" "$W/pfx0") n1=$(grep -cE "$hot" "$W/pfx1") n2=$(grep -cE "$hot" "$W/pfx2")
		check "annotate, source moved: mix's lines have their text only with --prefix and --prefix-strip $depth (without: $n0, with: $n1, strip 1: $n2)" \
			[ "$n0" = 0 -a "$n1" -ge 3 -a "$n2" = 0 ]
		"$S" annotate -i "$W/pfx.data" --prefix-strip 2 hot_loop > /dev/null 2> "$W/pfx.err"
		rc=$?
		check "annotate --prefix-strip without --prefix: exit $rc ($(cat "$W/pfx.err"))" [ $rc = 2 ]
		# a binary cut short inside hot_loop, its symbols in a debug file
		# found by build id (--debug DIR/.build-id/xx/rest.debug)
		bid=$(readelf -n "$W/pfxbin" | sed -n 's/.*Build ID: //p')
		mkdir -p "$W/dbg/.build-id/${bid:0:2}"
		objcopy --only-keep-debug "$W/pfxbin" "$W/dbg/.build-id/${bid:0:2}/${bid:2}.debug"
		start=$(nm "$W/pfxbin" | awk '$3 == "hot_loop" { print $1 }')
		truncate -s $((0x$start + 16)) "$W/pfxbin"
		"$S" annotate -i "$W/pfx.data" -n --debug "$W/dbg" hot_loop warm > "$W/cut" 2> /dev/null
		rc=$?
		line=$(grep -m1 '^## the file ends inside the function' "$W/cut")
		wline=$(awk '/^## warm / { w = 1 } w && /^## not disassembled/ { print; exit }' "$W/cut")
		tot=$(sed -nE 's/^## ([0-9]+) samples, .*/\1/p' "$W/cut" | head -1)
		sum=$(awk '/^## warm / { exit } /^ +[0-9]+ : +[0-9a-f]+(:|$)/ { n += $1 } END { print n + 0 }' "$W/cut")
		[ "$rc" = 0 ] && [[ $line == *": 16 of its "*" bytes" ]] && [[ $wline == *"holds none of its bytes" ]] && [ "${tot:-x}" = "$sum" ]
		ok=$?
		check "annotate, binary cut inside hot_loop: exit $rc, its line ($line), warm's ($wline), hot_loop's samples shown ($sum of ${tot:-none})" [ $ok = 0 ]
	else
		skip "annotate --prefix" "perf record failed"
	fi

	# bad binaries: missing, rebuilt (another build id), stripped
	cp "$W/inl" "$W/inl.keep"
	rm "$W/inl"
	"$S" annotate -i "$W/inl.data" > "$W/miss" 2> "$W/miss.err"
	rc=$?
	line=$(grep -m1 "in $W/inl not annotated" "$W/miss")
	[ $rc = 0 ] && [[ $line == *"not annotated: binary not found" ]]
	ok=$?
	check "annotate, binary missing: exit $rc, one line says why ($line)" [ $ok = 0 ]
	build_workload annotate_hot.c "$W/inl" -O2 -g -DREBUILT
	"$S" annotate -i "$W/inl.data" > "$W/reb" 2> /dev/null
	rc=$?
	line=$(grep -m1 "in $W/inl not annotated" "$W/reb")
	[ $rc = 0 ] && [[ $line == *"not annotated: build id differs"* ]]
	ok=$?
	check "annotate, binary rebuilt: exit $rc, one line says why ($line)" [ $ok = 0 ]
	strip -o "$W/inl" "$W/inl.keep"
	perf record -q -N -e cpu-clock -F 2000 -o "$W/strip.data" "$W/inl" > /dev/null 2>&1
	"$S" annotate -i "$W/strip.data" > "$W/strip" 2> /dev/null
	rc=$?
	line=$(grep -m1 "in $W/inl not annotated" "$W/strip")
	[ $rc = 0 ] && [[ $line == *"not annotated: "*strip* ]]
	ok=$?
	check "annotate, stripped binary: exit $rc, one line says why ($line)" [ $ok = 0 ]
fi

# pprof keeps each location's line: go tool pprof -list shows hot_loop's
# lines with their samples (the frame-pointer recording: its frames carry
# no inline chains, the lines are asked for)
if [ -s "$W/fp.data" ] && command -v go > /dev/null; then
	"$S" export -f pprof -i "$W/fp.data" -o "$W/fp.pb.gz"
	(cd "$TOP" && timeout 120 go tool pprof -list '^hot_loop$' "$W/fp.pb.gz") > "$W/list.txt" 2>&1
	# mix is inlined: without inline frames its samples are on the call's line
	n=$(grep -cE '^ +[0-9.]+m?s +[0-9.]+m?s +[0-9]+:.*(s = mix\(s\) \+ i|for \(unsigned i)' "$W/list.txt")
	check "pprof: go tool pprof -list hot_loop has samples on its loop's two lines ($n of 2)" [ "$n" = 2 ]
else
	skip "pprof -list" "no recording or no go"
fi

# JIT code named by a perf map: no bytes, samples by address
build_workload jit.c "$W/jit" -O2
if perf record -q -N -e cpu-clock -F 2000 -o "$W/jit.data" "$W/jit" 200 > /dev/null 2>&1; then
	"$S" annotate -i "$W/jit.data" -n jit_spin_loop > "$W/jit.s" 2> /dev/null
	rc=$?
	rm -f /tmp/perf-"$(sed -nE 's/^## jit_spin_loop  \[\/tmp\/perf-([0-9]+)\.map\]$/\1/p' "$W/jit.s")".map
	tot=$(sed -nE 's/^## ([0-9]+) samples, .*/\1/p' "$W/jit.s" | head -1)
	sum=$(awk '/^## not disassembled/ { s = 1; next } s && /^ +[0-9]+ : +[0-9a-f]+$/ { n += $1 } END { print n + 0 }' "$W/jit.s")
	grep -q '^## not disassembled: JIT code named by a perf map' "$W/jit.s"
	ok=$?
	check "annotate JIT: exit $rc, the reason line, samples by address ($sum of ${tot:-none})" \
		[ "$rc$ok" = 00 -a "${tot:-x}" = "$sum" ]
else
	skip "annotate JIT" "perf record failed"
fi

# kernel code from a kernel memory image (/proc/kcore's form): a recording
# of dd (its time is in the kernel); the hottest kernel symbol's bytes are
# made up and put at its address twice: in an image for --kcore
# (tests/tools/mkkcore.py) and in an ELF file with the symbol that perf
# annotate reads as the vmlinux. The made-up code is one-byte instructions
# of many kinds, so that every sampled address starts an instruction.
# Per-instruction counts == perf annotate --vmlinux, text == objdump.
kernel_image() { # SYM START SIZE BUILD_ID: $W/kcode.bin and $W/fake.vmlinux
	python3 -c 'import sys; k = bytes(range(0x50, 0x60)) + bytes([0x90, 0x91, 0x93, 0x96, 0x98, 0x99, 0x9c, 0x9d, 0x9e, 0x9f, 0xc3, 0xc9, 0xf5, 0xf8, 0xf9, 0xfc, 0xfd])
n = int(sys.argv[1]); open(sys.argv[2], "wb").write((k * (n // len(k) + 1))[:n])' "$3" "$W/kcode.bin" &&
	{ printf '.text\n.globl %s\n.type %s,@function\n%s:\n' "$1" "$1" "$1"
	  od -An -v -tu1 "$W/kcode.bin" | awk '{ for (i = 1; i <= NF; i++) print ".byte " $i }'
	  printf '.size %s, .-%s\n' "$1" "$1"; } > "$W/fake.s" &&
	as -o "$W/fake.o" "$W/fake.s" && ld -o "$W/fake.vmlinux" -e "$1" -Ttext=0x"$2" --build-id=0x"$4" "$W/fake.o"
}
if perf record -q -N -e cpu-clock -F 4000 -o "$W/k.data" -- dd if=/dev/zero of=/dev/null bs=64k count=40000 > /dev/null 2>&1; then
	"$S" annotate -i "$W/k.data" -n > "$W/k.s" 2> /dev/null
	# kernel code: its samples by address after the one-line reason
	# (disassembled where /proc/kcore holds the recorded kernel)
	nk=$(grep -c '^## .*  \[\[kernel' "$W/k.s")
	nr=$(awk '/^## .*  \[\[kernel/ { k = 1; next } k && /^## not disassembled: kernel code|Disassembly of/ { n++; k = 0 }
		/^$/ { k = 0 } END { print n + 0 }' "$W/k.s")
	check "annotate dd: $nk kernel symbols, each with the kernel reason or its code ($nr)" [ "$nk" -gt 0 -a "$nk" = "$nr" ]
	kbid=$(perf buildid-list -i "$W/k.data" 2> /dev/null | awk '$2 == "[kernel.kallsyms]" { print $1 }')
	# the kernel symbol with samples at the most addresses whose name is
	# once in kallsyms: its start and size (to the next symbol)
	awk '/^## .*  \[\[kernel\.kallsyms\]\]$/ { s = $2; next } /^## / { next } s && /^ +[0-9]+ : +[0-9a-f]+$/ { n[s]++ }
		END { for (k in n) print n[k], k }' "$W/k.s" | sort -k1,1nr -k2 | head -5 > "$W/kcand"
	read -r ksym kstart kend < <(awk 'NR == FNR { want[$2] = NR; next } ($3 in want) { n[$3]++; a[$3] = $1 }
		{ all[++m] = $1 } END { best = ""; for (s in n) if (n[s] == 1 && (best == "" || want[s] < want[best])) best = s
		if (best == "") exit; e = ""; for (i = 1; i <= m; i++) if (all[i] > a[best] && (e == "" || all[i] < e)) e = all[i]
		print best, a[best], e }' "$W/kcand" /proc/kallsyms)
	ksize=$(( ${kend:+0x$kend} - ${kstart:+0x$kstart} ))
	if [ -z "$ksym" ] || [ -z "$kbid" ] || [ -z "$kstart" ] || [ "$ksize" -le 0 -o "$ksize" -gt 65536 ]; then
		skip "annotate --kcore" "no kernel symbol of a known size with samples, or no kernel build id (${ksym:-none} ${kbid:-none} ${kstart:-?} $ksize)"
	elif ! kernel_image "$ksym" "$kstart" "$ksize" "$kbid"; then
		fail "annotate --kcore: could not make the kernel image of $ksym"
	else
		python3 "$TOP/tests/tools/mkkcore.py" "$W/kcore" "$kbid" "$kstart" "$W/kcode.bin"
		"$S" annotate -i "$W/k.data" --kcore "$W/kcore" -n "$ksym" > "$W/kc.s" 2> "$W/kc.err"
		rc=$?
		perf annotate -i "$W/k.data" --vmlinux "$W/fake.vmlinux" --stdio -n "$ksym" > "$W/kp.txt" 2> /dev/null
		[ "$rc" = 0 ] && ! grep -q '^## not disassembled' "$W/kc.s" && $CHK counts "$W/kc.s" "$W/kp.txt" "$ksym" > /dev/null
		ok=$?
		check "annotate --kcore: $ksym disassembled, exit $rc, per-instruction samples == perf annotate --vmlinux ($($CHK counts "$W/kc.s" "$W/kp.txt" "$ksym" | head -c 300))" \
			[ $ok = 0 ]
		objdump -d --no-show-raw-insn "$W/fake.vmlinux" > "$W/ko.txt"
		check "annotate --kcore: $ksym text == objdump ($($CHK text "$W/kc.s" "$W/ko.txt" "$ksym" 99 | head -c 200))" \
			$CHK text "$W/kc.s" "$W/ko.txt" "$ksym" 99
		# another kernel's image; an image that ends inside the function
		python3 "$TOP/tests/tools/mkkcore.py" "$W/kcore2" 0123456789abcdef0123456789abcdef01234567 "$kstart" "$W/kcode.bin"
		"$S" annotate -i "$W/k.data" --kcore "$W/kcore2" "$ksym" > "$W/kc2.s" 2> /dev/null
		rc=$?
		line=$(grep -m1 '^## not disassembled' "$W/kc2.s")
		[ "$rc" = 0 ] && [[ $line == *"is not the one in $W/kcore2"* ]]
		ok=$?
		check "annotate --kcore, another kernel's image: exit $rc, one line says why ($line)" [ $ok = 0 ]
		python3 "$TOP/tests/tools/mkkcore.py" "$W/kcore3" "$kbid" "$kstart" "$W/kcode.bin" $((ksize / 2))
		"$S" annotate -i "$W/k.data" --kcore "$W/kcore3" "$ksym" > "$W/kc3.s" 2> /dev/null
		rc=$?
		line=$(grep -m1 'ends inside the function' "$W/kc3.s")
		check "annotate --kcore, image ends inside the function: exit $rc, one line says so ($line)" \
			[ "$rc" = 0 -a -n "$line" ]
	fi
	# this machine's /proc/kcore, when readable and of the recorded kernel:
	# counts and text == perf annotate's (perf reads /proc/kcore too)
	nbid=$(od -An -v -tx1 /sys/kernel/notes 2> /dev/null | tr -d ' \n')
	if [ -n "$ksym" ] && [ -n "$kbid" ] && [ -r /proc/kcore ] && [[ $nbid == *"$kbid"* ]] &&
		head -c 64 /proc/kcore > /dev/null 2>&1; then
		"$S" annotate -i "$W/k.data" -n "$ksym" > "$W/kr.s" 2> /dev/null
		perf annotate -i "$W/k.data" --stdio -n "$ksym" > "$W/kpr.txt" 2> /dev/null
		sed -nE 's/^ *[0-9.]+ : +([0-9a-f]+): +/\1:\t/p' "$W/kpr.txt" > "$W/kpr.obj"
		check "annotate, /proc/kcore: $ksym per-instruction samples == perf annotate ($($CHK counts "$W/kr.s" "$W/kpr.txt" "$ksym" | head -c 300))" \
			$CHK counts "$W/kr.s" "$W/kpr.txt" "$ksym"
		check "annotate, /proc/kcore: $ksym text == perf annotate's ($($CHK text "$W/kr.s" "$W/kpr.obj" "$ksym" 99 | head -c 200))" \
			$CHK text "$W/kr.s" "$W/kpr.obj" "$ksym" 99
	else
		skip "annotate /proc/kcore" "not readable here, or another kernel than the recording's"
	fi
else
	skip "annotate --kcore" "perf record failed"
fi
