#!/bin/bash
# alloc_calls.sh [SRC]: the calls that break the allocation policy
# (util/xalloc.h) in SRC (default src): a raw malloc, calloc, realloc,
# strdup or their kin outside SRC/util (the x* helpers are the way), and an
# abort() anywhere but xalloc_die, which says why first. Prints each as
# FILE:LINE: TEXT and exits 1 when there is one. Comments are not code: a
# line whose text starts with /*, * or // is passed over.
#
# Exceptions, one a line, "FILE: reason" (FILE relative to SRC); none now.
ALLOW=(
)
src=${1:-src}
cd "$src" || exit 2
raw='\b(malloc|calloc|realloc|reallocarray|strdup|strndup|aligned_alloc|posix_memalign|memalign|valloc)[[:space:]]*\('
allowed() {
	local a
	for a in "${ALLOW[@]}"; do [ "${a%%:*}" = "$1" ] && return 0; done
	return 1
}
bad=0
while IFS= read -r hit; do
	f=${hit%%:*}
	allowed "$f" && continue
	echo "$hit"; bad=1
done < <(
	grep -rnE --include='*.c' --include='*.h' "$raw" . | sed 's#^\./##' | grep -v '^util/' |
		grep -vE '^[^:]+:[0-9]+:[[:space:]]*(/\*|\*|//)'
	grep -rnE --include='*.c' --include='*.h' '\babort[[:space:]]*\(' . | sed 's#^\./##' |
		grep -v '^util/xalloc\.c:' | grep -vE '^[^:]+:[0-9]+:[[:space:]]*(/\*|\*|//)'
)
exit $bad
