#!/bin/sh
# npm-deps.sh: the npm packages the browser tests use, in build/node_modules
# (git-ignored): speedscope (to import our speedscope export) and
# playwright-core (to drive the system's Chromium; it never downloads a
# browser). Needs nodejs + npm (scripts/deps.sh) and the npm registry.
# playwright-core 1.61 is the last release for Node.js 18, Debian 12's
# nodejs (1.62 and later need Node.js 20 and refuse to start on a fresh
# machine; seen in scripts/fresh-check.sh --test).
#   scripts/npm-deps.sh          install when missing
#   scripts/npm-deps.sh --check  exit 0 when installed
cd "$(dirname "$0")/.." || exit 1
have() { [ -f build/node_modules/speedscope/package.json ] && [ -f build/node_modules/playwright-core/package.json ]; }
if [ "$1" = "--check" ]; then have; exit $?; fi
have && exit 0
command -v npm >/dev/null || { echo "scorch: npm is missing (apt-get install npm)" >&2; exit 1; }
mkdir -p build
[ -f build/package.json ] || echo '{"private":true}' > build/package.json
PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm install --prefix build --no-audit --no-fund --loglevel=error \
	speedscope@1.25.0 playwright-core@1.61.1
