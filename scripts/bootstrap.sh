#!/usr/bin/env bash
# The one entry behind `npm run demo` and `npm test`, so each works as the first command after `git clone`
# with whatever Node is on PATH: Node 24 (fetched once when missing), the project's dependencies (installed
# again whenever package-lock.json changed), then the command itself.
#   bash scripts/bootstrap.sh demo | test
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

# shellcheck source=scripts/toolchain.sh
source scripts/toolchain.sh || exit 1

DEPS_STAMP="node_modules/.campaign-calling-deps"
DEPS_INSTALLING="node_modules/.campaign-calling-installing"

deps_fingerprint() { printf '%s node-%s' "$(cat package.json package-lock.json | sha256sum | cut -c1-64)" "$(node --version)"; }

ensure_dependencies() {
  if [ -f "$DEPS_STAMP" ] && [ "$(cat "$DEPS_STAMP")" = "$(deps_fingerprint)" ]; then return 0; fi
  if [ -f "$DEPS_INSTALLING" ]; then
    # npm may take a half-unpacked package for a whole one: start over rather than build on it.
    setup_say "an earlier install of the project's dependencies did not finish; removing node_modules and starting again"
    rm -rf node_modules
  fi
  setup_say "installing the project's development dependencies into node_modules (about 1 minute the first time)"
  mkdir -p node_modules && touch "$DEPS_INSTALLING"
  if ! npm install --no-audit --no-fund --loglevel=error; then
    setup_say "npm install failed (its message is above). Check that this machine reaches the npm registry, then run the same command again."
    return 1
  fi
  rm -f "$DEPS_INSTALLING"
  deps_fingerprint >"$DEPS_STAMP"
}

ensure_dependencies || exit 1

case "${1:-}" in
  demo)
    setup_say "building the package"
    npm run --silent build || exit 1
    exec node scripts/demo.ts
    ;;
  test)
    exec npm run --silent test:all
    ;;
  *)
    echo "usage: bash scripts/bootstrap.sh demo|test" >&2
    exit 2
    ;;
esac
