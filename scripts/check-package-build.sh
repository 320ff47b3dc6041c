#!/usr/bin/env bash
# Checks scripts/package.sh as an admin runs it: in a fresh `git clone` of this repository's HEAD (commit first what
# you want checked), with nothing but the Node and npm on PATH (`env -i`), an empty HOME holding only a copy of
# ~/.npmrc (registry, CA file, proxy) when there is one, and an empty TMPDIR. It fails unless the .tgz and its
# .sha256 are written, the tarball holds exactly package.json, README.md, LICENSE and what the build makes of the
# sources (each .ts as .js, the icons and codex files), the HOME is left as it was, the TMPDIR is empty again, and
# the clone gains only the two files.
#   bash scripts/check-package-build.sh
# A step of `npm test` (`npm run test:package`, scripts/test-all.sh). It needs the npm registry (about 85 MB
# downloaded) and takes 15-60 s.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
repo="$PWD"

say() { printf '[check-package %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
failures=0
check() {
  if eval "$2"; then say "ok: $1"; return 0; fi
  say "FAILED: $1"
  failures=$((failures + 1))
  return 1
}

started=$SECONDS
work="$(mktemp -d "${TMPDIR:-/tmp}/campaign-calling-package-check.XXXXXX")" || exit 1
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

[ -z "$(git status --porcelain --untracked-files=no)" ] || say "note: the working tree has uncommitted changes; this checks HEAD ($(git rev-parse --short HEAD)) only"
git clone --quiet "$repo" "$work/clone" || exit 1
mkdir -p "$work/home" "$work/tmp" || exit 1
[ -f "${HOME:-/nonexistent}/.npmrc" ] && { cp "$HOME/.npmrc" "$work/home/.npmrc" || exit 1; }
home_before="$(cd "$work/home" && find . -exec ls -ld --time-style=+%s.%N {} + | sort)"

say "running scripts/package.sh in a clone of $(git rev-parse --short HEAD), with env -i HOME=<empty> TMPDIR=<empty> PATH=<this PATH> (node $(node --version), npm $(npm --version))"
package_started=$SECONDS
# npm reads its global settings (where a machine keeps its registry's CA file) from beside the Node it came with; a
# Node put first on PATH from elsewhere (scripts/toolchain.sh's) needs the location passed on, as toolchain.sh does.
globalconfig="$(npm config get globalconfig 2>/dev/null)"
env -i HOME="$work/home" TMPDIR="$work/tmp" PATH="$PATH" ${globalconfig:+npm_config_globalconfig="$globalconfig"} bash -c 'cd "$1" && bash scripts/package.sh' _ "$work/clone"
status=$?
package_seconds=$((SECONDS - package_started))
if ! check "scripts/package.sh exited 0 (it exited $status)" '[ "$status" -eq 0 ]'; then
  say "package.sh took ${package_seconds} s and failed (its messages are above)"
  exit 1
fi

cd "$work/clone" || exit 1
tarball="$(node -p 'const p = require("./package.json"); `${p.name}-${p.version}.tgz`')"
check "$tarball exists" '[ -s "$tarball" ]'
check "$tarball.sha256 matches it" 'node -e '"'"'
  const fs = require("fs"), [hash, name] = fs.readFileSync(process.argv[1], "utf8").trim().split(/\s+/);
  const actual = require("crypto").createHash("sha256").update(fs.readFileSync(name)).digest("hex");
  process.exit(name === process.argv[2] && hash === actual ? 0 : 1);
'"'"' "$tarball.sha256" "$tarball"'

# What the build makes of the sources: tsc writes each nodes/ and credentials/ .ts as dist/**/*.js (no declarations,
# no maps: tsconfig.json), gulp copies the icons and codex files; npm pack adds package.json, README.md and LICENSE.
expected="$(
  {
    printf 'package/%s\n' package.json README.md LICENSE
    find nodes credentials -type f -name '*.ts' | sed 's#\.ts$#.js#; s#^#package/dist/#'
    find nodes credentials -type f \( -name '*.svg' -o -name '*.png' -o -name '*.node.json' \) | sed 's#^#package/dist/#'
  } | sort
)"
actual="$(tar -tzf "$tarball" 2>/dev/null | sort)"
check "the tarball holds exactly package.json, README.md, LICENSE and the built dist/ ($(wc -l <<<"$expected") files)" '[ "$expected" = "$actual" ]' ||
  diff <(echo "$expected") <(echo "$actual") | sed 's/^/  expected < > tarball: /' >&2
for entry in $(node -p 'const p = require("./package.json"); [...p.n8n.nodes, ...p.n8n.credentials].join(" ")'); do
  check "it holds $entry (package.json's n8n entry)" 'grep -qx "package/$entry" <<<"$actual"'
done
icons="$(grep -cE '\.(svg|png)$' <<<"$actual")"
check "it holds the icons ($icons, a light and a dark one per node)" '[ "$icons" -ge 4 ]'
check "the clone gained only the two files (no node_modules, no dist)" \
  '[ "$(git status --porcelain --ignored | sort)" = "$(printf "!! %s\n?? %s.sha256\n" "$tarball" "$tarball" | sort)" ]' ||
  git status --porcelain --ignored >&2
check "the empty HOME is as it was (only the copied .npmrc, if any)" \
  '[ "$(cd "$work/home" && find . -exec ls -ld --time-style=+%s.%N {} + | sort)" = "$home_before" ]' ||
  (cd "$work/home" && find . >&2)
check "the TMPDIR is empty again (package.sh removed its temporary folder, and nothing else was left there)" \
  '[ -z "$(ls -A "$work/tmp")" ]' || ls -lA "$work/tmp" >&2

say "package.sh took ${package_seconds} s; the whole check $((SECONDS - started)) s"
if [ "$failures" -ne 0 ]; then say "$failures check(s) failed"; exit 1; fi
say "all checks passed"
