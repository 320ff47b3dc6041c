#!/usr/bin/env bash
# The one entry behind `npm run demo` and `npm test`, so each works as the first command after `git clone`
# with whatever Node is on PATH: Node 24 (fetched once when missing), the project's dependencies (installed
# with `npm ci` again whenever package.json or package-lock.json changed), then the command itself.
#   bash scripts/bootstrap.sh demo | test | install | package
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

# The package file needs none of this: scripts/package.sh builds it with the Node on PATH (20 or newer) and only the
# build's packages, in a temporary folder, leaving node_modules and ~/.cache as they are.
if [ "${1:-}" = package ]; then exec bash scripts/package.sh; fi

# shellcheck source=scripts/toolchain.sh
source scripts/toolchain.sh || exit 1

DEPS_STAMP="node_modules/.campaign-calling-deps"

deps_fingerprint() { printf '%s node-%s' "$(cat package.json package-lock.json | sha256sum | cut -c1-64)" "$(node --version)"; }

ensure_dependencies() {
  if [ -f "$DEPS_STAMP" ] && [ "$(cat "$DEPS_STAMP")" = "$(deps_fingerprint)" ]; then return 0; fi
  # npm ci installs exactly what package-lock.json holds and never rewrites it. It empties node_modules first
  # (the stamp with it), so an install that was cut off is started afresh by the next run, never built on.
  setup_say "installing the project's development dependencies into node_modules with npm ci (about 1 minute the first time)"
  if ! npm ci --no-audit --no-fund --loglevel=error; then
    setup_say "npm ci failed (its message is above). If it says package.json and package-lock.json are not in sync, run"
    setup_say "\`npm install --package-lock-only\` and commit package-lock.json; otherwise check that this machine reaches the npm registry, then run the same command again."
    return 1
  fi
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
  install)
    # The dependencies only (CI installs them in a step of its own before `npm test`, which then finds them in place).
    exit 0
    ;;
  *)
    echo "usage: bash scripts/bootstrap.sh demo|test|install|package" >&2
    exit 2
    ;;
esac
