#!/usr/bin/env bash
# `npm run test:all` (behind `npm test`): the checks and the unit tests, then the real-n8n suites. The installs the
# real-n8n suites need (`npm run test:prepare`: n8n's two lines, sqlite3, Debian's packages) need none of the checks,
# so they start first and run beside them, their lines prefixed [prepare]; the real-n8n suites wait for both.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

(npm run --silent test:prepare 2>&1 | sed -u 's/^/[prepare] /'; exit "${PIPESTATUS[0]}") &
prepare_job=$!

checks_status=0
for step in test:lockfile lint build test:scan test:package typecheck test:unit; do
  if ! npm run --silent "$step"; then
    checks_status=1
    echo "npm test: \`npm run $step\` failed (its output is above); waiting for the installs to finish before stopping." >&2
    break
  fi
done

# A cut-off install is repaired by the next run, but a finished one is kept: let it end either way.
wait "$prepare_job"
prepare_status=$?
if [ "$prepare_status" -ne 0 ]; then
  echo "npm test: preparing the real-n8n suites failed (the [prepare] lines above say why); run the same command again." >&2
fi
if [ "$checks_status" -ne 0 ] || [ "$prepare_status" -ne 0 ]; then exit 1; fi
exec npm run --silent test:real-n8n
