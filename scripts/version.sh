#!/bin/sh
# version.sh: the version scorch is built as. A release tarball (make dist)
# carries a VERSION file; a git checkout is described by its tag (v1.2 ->
# 1.2, 1.2-3-gHASH three commits later) or, before the first tag, by its
# commit (0.1-gHASH), with -dirty for uncommitted changes.
cd "$(dirname "$0")/.." || exit 1
if [ -f VERSION ]; then
	head -n1 VERSION
elif v=$(git describe --tags --match 'v[0-9]*' --dirty 2>/dev/null); then
	echo "${v#v}"
elif v=$(git describe --always --dirty --abbrev=12 2>/dev/null); then
	echo "0.1-g$v"
else
	echo "0.1-unknown"
fi
