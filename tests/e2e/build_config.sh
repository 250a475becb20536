#!/bin/bash
# build_config.sh: the build configures after installing, and rebuilds when
# the configuration changes (the first `make demo` on a fresh machine once
# failed to link: pkg-config ran when the Makefile was read, before the
# packages were installed, and objects did not rebuild when flags changed).
#
# A copy of the tree is built with a pkg-config that knows no library until
# the "install" step (a stand-in for scripts/deps.sh --build) has run, as on
# a machine that has none yet. Then the optional libdebuginfod disappears:
# what uses it must rebuild without it, and an unchanged configuration must
# rebuild nothing.
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/e2e/lib.sh"
R=$W/repo
mkdir -p "$R" "$W/bin"
(cd "$TOP" && git ls-files -co --exclude-standard -z | xargs -0 cp --parents -t "$R") || {
	fail "build_config: copy the tree"; exit 0; }
real=$(command -v pkg-config)
cat > "$W/bin/pkg-config" <<PC
#!/bin/sh
# nothing is installed until the deps step ran; $W/no-<pkg> hides a package
[ -e "$W/installed" ] || exit 1
for a in "\$@"; do [ -e "$W/no-\$a" ] && exit 1; done
exec $real "\$@"
PC
cat > "$W/bin/deps" <<DP
#!/bin/sh
touch "$W/installed"
DP
chmod +x "$W/bin/pkg-config" "$W/bin/deps"
mk() { PATH=$W/bin:$PATH make -C "$R" -j2 DEPS="$W/bin/deps" OPT=-O0 build/scorch > "$W/make.log" 2>&1; }

# 1. one make on the "fresh machine" installs, configures and links
if mk && [ -x "$R/build/scorch" ]; then
	pass "build_config: first make installs, configures and links"
else
	fail "build_config: first make installs, configures and links"; tail -5 "$W/make.log"
fi
check "build_config: the configuration found the optional libdebuginfod" \
	grep -q -- '-DHAVE_DEBUGINFOD=1' "$R/build/config.mk"
check "build_config: the binary can load libdebuginfod" grep -q -a 'libdebuginfod' "$R/build/scorch"

# 2. an unchanged configuration rebuilds nothing
sleep 1
touch "$W/mark"
mk
if [ -z "$(find "$R/build" -name '*.o' -newer "$W/mark")" ] && ! [ "$R/build/scorch" -nt "$W/mark" ]; then
	pass "build_config: unchanged configuration rebuilds nothing"
else
	fail "build_config: unchanged configuration rebuilds nothing"
fi

# 3. an optional library gone: the objects rebuild, the binary goes without it
touch "$W/no-libdebuginfod" "$W/mark"
if mk && ! grep -q -- HAVE_DEBUGINFOD "$R/build/config.mk" &&
	[ "$R/build/obj/src/util/err.o" -nt "$W/mark" ] && ! grep -q -a 'libdebuginfod' "$R/build/scorch"; then
	pass "build_config: a changed configuration rebuilds (no libdebuginfod)"
else
	fail "build_config: a changed configuration rebuilds (no libdebuginfod)"; tail -5 "$W/make.log"
fi

# 4. a required library missing: one clear error, no half-configured build
touch "$W/no-libdw"
if ! mk && grep -q 'missing libraries (pkg-config): libdw' "$W/make.log"; then
	pass "build_config: a missing required library is named"
else
	fail "build_config: a missing required library is named"; tail -5 "$W/make.log"
fi
