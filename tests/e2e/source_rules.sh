#!/bin/bash
# source_rules.sh: rules of the source tree that a compiler does not check.
#   - no include circles: no unit of src/ (a .c with its .h) reaches itself
#     through #include lines (tests/tools/include_cycles.py), so every
#     dependency runs one way and a lower stage never includes its driver.
#   - the allocation policy (util/xalloc.h): no raw malloc/calloc/realloc/
#     strdup (or kin) outside src/util, no abort() that says nothing
#     (tests/tools/alloc_calls.sh, with its list of exceptions).
# Each checker is first shown a small tree that breaks its rule, so a checker
# that cannot fail fails here.
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/e2e/lib.sh"
command -v python3 > /dev/null || { skip source_rules "no python3"; exit 0; }

# include circles: a -> b -> c -> a (through a header of c's and a .c of a's)
mkdir -p "$W/inc/x" "$W/inc/y"
printf '#include "x/b.h"\n' > "$W/inc/x/a.c"
printf '#include <stdio.h>\n' > "$W/inc/x/a.h"
printf '#include "y/c.h"\n' > "$W/inc/x/b.h"
printf '#include "x/a.h"\n' > "$W/inc/y/c.h"
out=$(python3 "$TOP/tests/tools/include_cycles.py" "$W/inc")
if [ $? = 1 ] && grep -q '^circle: x/a x/b y/c$' <<< "$out"; then
	pass source_include_checker_finds_a_circle
else
	fail source_include_checker_finds_a_circle "$out"
fi
if out=$(python3 "$TOP/tests/tools/include_cycles.py" "$TOP/src"); then
	pass source_no_include_circles
else
	fail source_no_include_circles
	echo "$out"
fi

# allocation policy: a raw call, a bare abort, a comment that names one
mkdir -p "$W/alloc/util" "$W/alloc/out"
printf 'void *f(void) { return malloc(8); }\nvoid g(void) { abort(); }\n/* malloc(1) in a comment */\n' > "$W/alloc/out/a.c"
printf 'void *h(void) { return malloc(8); }\n' > "$W/alloc/util/ok.c"
out=$(bash "$TOP/tests/tools/alloc_calls.sh" "$W/alloc")
if [ $? = 1 ] && [ "$(wc -l <<< "$out")" = 2 ] && grep -q '^out/a.c:1:' <<< "$out" &&
	grep -q '^out/a.c:2:' <<< "$out"; then
	pass source_alloc_checker_finds_raw_calls
else
	fail source_alloc_checker_finds_raw_calls "$out"
fi
if out=$(bash "$TOP/tests/tools/alloc_calls.sh" "$TOP/src"); then
	pass source_alloc_policy
else
	fail source_alloc_policy
	echo "$out"
fi
