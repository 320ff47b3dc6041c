#!/usr/bin/env bash
# `npm run test:mutation [part ...]`: StrykerJS over each part of nodes/ and credentials/ (PARTS in
# stryker.config.mjs), one after another, then the score per part and in all (scripts/mutation-score.ts).
# Opt-in, not part of `npm test`; each part keeps an incremental file, so a second run re-tests only the
# mutants whose code or tests changed. Ctrl-C saves the part's results so far.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/toolchain.sh
source scripts/toolchain.sh
parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(trigger transport shared actions credentials)
mkdir -p reports/mutation
for part in "${parts[@]}"; do
  setup_say "mutation testing: $part"
  MUTATION_PART="$part" npx stryker run
  # Timed-out mutants, then survivors and uncovered mutants, once more (stryker.config.mjs says why).
  if grep -q '"status":"Timeout"' "reports/mutation/$part.json"; then
    setup_say "mutation testing: $part, timed-out mutants again, one runner per core"
    MUTATION_PART="$part" MUTATION_RECHECK=timeouts npx stryker run
  else
    rm -f "reports/mutation/$part.timeouts.json"
  fi
  if grep -qs '"status":"\(Survived\|NoCoverage\)"' "reports/mutation/$part.json" "reports/mutation/$part.timeouts.json"; then
    setup_say "mutation testing: $part, survivors against all of its tests"
    MUTATION_PART="$part" MUTATION_RECHECK=survivors npx stryker run
  else
    rm -f "reports/mutation/$part.recheck.json"
  fi
done
node scripts/mutation-score.ts
