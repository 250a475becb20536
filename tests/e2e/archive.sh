#!/bin/bash
# archive.sh: scorch archive puts a recording and the files its samples
# need into one file that every reading command takes as its input. A DWARF
# recording of a C++ program with two shared libraries of its own (and
# kernel frames: it reads /dev/zero) is archived, the program and its
# libraries are moved away, and report, script, perfparser, export, stats
# and annotate of the archive equal those of the recording made before the
# move. tar reads the archive as perf's build-id cache layout. A damaged or
# cut archive is one line with the file and an offset, exit status 2, and
# leaves no directory behind; a file not found when the archive was made is
# said once.
. "$(dirname "$0")/lib.sh"
unset DEBUGINFOD_URLS
export HOME=$W/home XDG_CACHE_HOME=$W/xdg TMPDIR=$W/tmp
mkdir -p "$HOME" "$TMPDIR" "$W/bin" "$W/orig" "$W/arch"
if ! command -v g++ > /dev/null; then
	skip archive "no g++"
	exit 0
fi

# ---- the program: prog -> libb.so -> liba.so, built here ----
cat > "$W/liba.cpp" <<'EOF'
#include <vector>
namespace a {
__attribute__((noinline)) double work_a(long n)
{
	std::vector<double> v(64);
	double s = 0;
	for (long i = 0; i < n; i++) {
		v[i & 63] += (double)i * 0.5;
		s += v[(i * 7) & 63];
	}
	return s;
}
}
EOF
cat > "$W/libb.cpp" <<'EOF'
#include <fcntl.h>
#include <unistd.h>
namespace a { double work_a(long n); }
namespace b {
__attribute__((noinline)) double work_b(long n)
{
	double s = 0;
	char buf[4096];
	for (int k = 0; k < 20; k++) {
		s += a::work_a(n / 40);
		int fd = open("/dev/zero", O_RDONLY);
		for (int j = 0; j < 300; j++)
			s += (double)read(fd, buf, sizeof buf);
		close(fd);
	}
	return s;
}
}
EOF
cat > "$W/main.cpp" <<'EOF'
#include <cstdio>
#include <cstdlib>
namespace b { double work_b(long n); }
__attribute__((noinline)) double run(long n) { return b::work_b(n); }
int main(int argc, char **argv) { std::printf("%f\n", run(std::atol(argv[1]))); return 0; }
EOF
build() { # the program and its libraries in $W/bin
	g++ -O1 -g -fPIC -shared -o "$W/bin/liba.so" "$W/liba.cpp" &&
		g++ -O1 -g -fPIC -shared -o "$W/bin/libb.so" "$W/libb.cpp" -L"$W/bin" -la -Wl,-rpath,"$W/bin" &&
		g++ -O1 -g -o "$W/bin/prog" "$W/main.cpp" -L"$W/bin" -lb -la -Wl,-rpath,"$W/bin"
}
build
check archive_program_builds test $? = 0

cd "$W/orig" || exit 1
"$SCORCH" record -q -N --call-graph dwarf -e cpu-clock -- "$W/bin/prog" 100000000 > /dev/null
check archive_record test $? = 0
"$SCORCH" report --stdio > "$W/report.0" 2> /dev/null
"$SCORCH" script > "$W/script.0" 2> /dev/null
"$SCORCH" perfparser --input perf.data > "$W/pp.0" 2> /dev/null
"$SCORCH" export -f folded -o "$W/folded.0" 2> /dev/null
"$SCORCH" stats > "$W/stats.0" 2> /dev/null
"$SCORCH" annotate --stdio a::work_a > "$W/annotate.0" 2> /dev/null
check archive_original_names_libraries grep -q 'a::work_a' "$W/report.0"
check archive_original_has_kernel_frames grep -q '(\[kernel\.kallsyms\])' "$W/script.0"
check archive_original_has_main grep -q "main+0x[0-9a-f]* ($W/bin/prog)" "$W/script.0"

# ---- the archive ----
"$SCORCH" archive -o "$W/arch/perf.data" 2> "$W/archive.err"
check archive_writes test $? = 0
check archive_says_what_it_put grep -q 'scorch archive: .*DSOs hit' "$W/archive.err"
check archive_nothing_missing test "$(grep -c 'not found\|differs' "$W/archive.err")" = 0
tar --zstd -tf "$W/arch/perf.data" > "$W/list" 2> "$W/tar.err"
check archive_tar_reads_it test $? = 0 -a ! -s "$W/tar.err"
check archive_first_member_is_its_list test "$(head -1 "$W/list")" = scorch-archive
check archive_holds_recording grep -qx perf.data "$W/list"
for f in prog liba.so libb.so; do
	id=$(readelf -n "$W/bin/$f" | awk '/Build ID/ { print $3 }')
	check "archive_holds_${f}_by_build_id" grep -qx "${W#/}/bin/$f/$id/elf" "$W/list"
	check "archive_holds_${f}_build_id_link" grep -qx ".build-id/${id:0:2}/${id:2}" "$W/list"
done
check archive_holds_kallsyms grep -q '^\[kernel\.kallsyms\]/[0-9a-f]*/kallsyms$' "$W/list"
mkdir "$W/x"
tar --zstd -xf "$W/arch/perf.data" -C "$W/x"
check archive_unpacked_by_tar_is_the_recording cmp "$W/x/perf.data" "$W/orig/perf.data"

# ---- read with the program and its libraries gone ----
mv "$W/bin" "$W/bin.away"
cd "$W/arch" || exit 1
"$SCORCH" report --stdio > "$W/report.1" 2> "$W/report.err"
check archive_report_equals_original cmp "$W/report.0" "$W/report.1"
check archive_report_no_warning test ! -s "$W/report.err"
"$SCORCH" script > "$W/script.1" 2> "$W/script.err"
check archive_script_equals_original cmp "$W/script.0" "$W/script.1"
check archive_script_no_warning test ! -s "$W/script.err"
"$SCORCH" script -j 2 > "$W/script.2" 2> /dev/null
check archive_script_j2_equals_original cmp "$W/script.0" "$W/script.2"
"$SCORCH" perfparser --input perf.data > "$W/pp.1" 2> /dev/null
check archive_perfparser_equals_original cmp "$W/pp.0" "$W/pp.1"
"$SCORCH" export -f folded -o "$W/folded.1" 2> /dev/null
check archive_export_equals_original cmp "$W/folded.0" "$W/folded.1"
"$SCORCH" stats > "$W/stats.1" 2> /dev/null
check archive_stats_equals_original cmp "$W/stats.0" "$W/stats.1"
"$SCORCH" annotate --stdio a::work_a > "$W/annotate.1" 2> /dev/null
check archive_annotate_equals_original cmp "$W/annotate.0" "$W/annotate.1"
"$SCORCH" diff "$W/orig/perf.data" perf.data > "$W/diff" 2> /dev/null
check archive_diff_against_original_runs test $? = 0 -a -s "$W/diff"
check archive_no_directory_left test -z "$(ls -A "$TMPDIR")"
# the control: the recording alone has no names for the moved files now
"$SCORCH" script -i "$W/orig/perf.data" > "$W/script.gone" 2> "$W/gone.err"
check archive_control_without_archive grep -q 'liba.so: not found' "$W/gone.err"

# ---- damaged, cut ----
size=$(stat -c %s perf.data)
cp perf.data "$W/bad"
printf '\x55\xaa\x55\xaa' | dd of="$W/bad" bs=1 seek=$((size / 2)) conv=notrunc 2> /dev/null
head -c $((size / 3)) perf.data > "$W/cut"
printf '\x28\xb5\x2f\xfdgarbage' > "$W/magic-only"
for f in bad cut magic-only; do
	"$SCORCH" report --stdio -i "$W/$f" > /dev/null 2> "$W/$f.err"
	rc=$?
	if [ $rc = 2 ] && [ "$(wc -l < "$W/$f.err")" = 1 ] && grep -q "^scorch: $W/$f: offset [0-9]*: " "$W/$f.err"; then
		pass "archive_${f}_one_line_with_offset_exit_2"
	else
		fail "archive_${f}_one_line_with_offset_exit_2" "rc $rc: $(head -3 "$W/$f.err")"
	fi
	"$SCORCH" script -i "$W/$f" > /dev/null 2>&1
	check "archive_${f}_script_exit_2" test $? = 2
	check "archive_${f}_no_directory_left" test -z "$(ls -A "$TMPDIR")"
done
"$SCORCH" archive -i perf.data -o "$W/again" 2> "$W/again.err"
check archive_of_an_archive_refused test $? = 2

# ---- a file not found when the archive is made: said once ----
mv "$W/bin.away" "$W/bin"
cd "$W/orig" || exit 1
sed -i 's/\* 0.5/* 0.25/' "$W/liba.cpp"
g++ -O1 -g -fPIC -shared -o "$W/bin/liba.so" "$W/liba.cpp"
"$SCORCH" archive -o "$W/missing.tar.zst" 2> "$W/missing.err"
check archive_with_missing_file_writes test $? = 0
check archive_names_missing_file grep -q "$W/bin/liba.so [0-9a-f]*: build id differs" "$W/missing.err"
"$SCORCH" script -j 2 -i "$W/missing.tar.zst" > /dev/null 2> "$W/missing.read"
n=$(grep -c 'not found when the archive was made' "$W/missing.read")
check archive_reader_says_missing_once test "$n" = 1
check archive_reader_names_missing_file grep -q "1 file was not found when the archive was made: $W/bin/liba.so$" "$W/missing.read"
