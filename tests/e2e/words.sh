#!/bin/bash
# words.sh: the repository speaks of scorch, not of how it was made: no
# development round ("stop" and a number), no tracker number ("issue" and a
# number) and no "this" + "VM" (a figure names its machine in
# bench/RESULTS.md), in any text file: README, docs, sources, tests, bench,
# packaging. Each line found fails, with its place.
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/e2e/lib.sh"
cd "$TOP" || exit 1
# (the bracket keeps this file from matching itself)
words='\bstop [0-9]+|\bissue #?[0-9]+|this V[M]'
if git rev-parse --is-inside-work-tree > /dev/null 2>&1; then
	# tracked files and new ones not yet added; ignored ones (build/) not
	found=$(git grep -I --untracked -niE "$words" 2> /dev/null)
else
	found=$(grep -rIniE --exclude-dir=.git --exclude-dir=build "$words" . 2> /dev/null)
fi
if [ -z "$found" ]; then
	pass "words: no development-process words in the tree"
else
	fail "words: $(printf '%s\n' "$found" | wc -l) lines with development-process words" \
		"$(printf '%s\n' "$found" | head -20 | cut -c1-200)"
fi
