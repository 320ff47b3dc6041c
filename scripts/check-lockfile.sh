#!/usr/bin/env bash
# `npm run test:lockfile`, the first step of `npm test`: fails when package.json and package-lock.json
# disagree, with npm's list of what is missing or different. It asks `npm ci --dry-run`, the same check
# `npm ci` (README, CI, the publish workflow) makes before it installs, so it also catches a lockfile that
# lacks another platform's optional packages. A dry run reads the lockfile only and leaves node_modules as it is.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

if npm_output="$(npm ci --dry-run --ignore-scripts --no-audit --no-fund --loglevel=error 2>&1 >/dev/null)"; then
  exit 0
fi
{
  echo "package.json and package-lock.json are not in sync, so \`npm ci\` would refuse to install:"
  grep -E '^npm error (Missing|Invalid|Extraneous|`npm ci` can only)' <<<"$npm_output" || echo "$npm_output"
  echo "Regenerate the lockfile with every platform's entries: \`npm install --package-lock-only\`, then commit package-lock.json."
} >&2
exit 1
