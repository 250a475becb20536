#!/bin/bash
# source_rules.sh: rules of the source tree that a compiler does not check.
#   - no include circles: no unit of src/ (a .c with its .h) reaches itself
#     through #include lines (tests/tools/include_cycles.py), so every
#     dependency runs one way and a lower stage never includes its driver.
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
