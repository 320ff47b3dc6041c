#!/usr/bin/env bash
# Builds the package file, n8n-nodes-campaign-calling-<version>.tgz, and its .sha256 in this folder, with only
# what the build needs: behind `bash scripts/bootstrap.sh package` and docs/installation.md, for an admin
# without a release. Needs bash, Node 20 or newer and npm on PATH; no git, no `npm ci`, no Node 24.
#
# Everything happens in a temporary folder, removed at the end: the sources the build and `npm pack` read are
# copied into <tmp>/src, and <tmp>/node_modules gets the build's packages alone (typescript, gulp, n8n-workflow
# for its types and @types/node for `crypto`, with what they depend on, about 290 packages and 175 MB), each at
# the version package-lock.json pins at the same place in the tree (checked below), without their install scripts.
# npm's cache and HOME point inside that folder too (the user's ~/.npmrc is still read), so nothing is written to
# the user's home or the system's temporary folder (gulp's v8flags cache would be), nor to this clone other than
# the two files.
#
# Also in the official Node image, with no Node or npm on the host:
#   docker run --rm -v "$PWD":/src -w /src node:24 bash scripts/package.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
repo="$PWD"

say() { printf '[package %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
fail() { say "$*"; exit 1; }

# What `npm run build` (gulp clean, tsc -p tsconfig.json, gulp build:icons) loads; nothing else is installed.
BUILD_PACKAGES=(typescript gulp n8n-workflow @types/node)
# What the build and `npm pack` read (package.json's "files" is dist/; npm adds package.json, README and LICENSE).
SOURCES=(package.json tsconfig.json gulpfile.js nodes credentials README.md LICENSE)

command -v node >/dev/null 2>&1 || fail "no node on PATH: install Node.js 20 or newer (or use the docker line in docs/installation.md)."
command -v npm >/dev/null 2>&1 || fail "no npm on PATH: it comes with Node.js."
node_major="$(node -p 'process.versions.node.split(".")[0]')"
[ "$node_major" -ge 20 ] 2>/dev/null || fail "Node $(node --version) is on PATH; the build needs Node 20 or newer."
for f in "${SOURCES[@]}" package-lock.json; do
  [ -e "$f" ] || fail "$f is missing: run this script from a clone of the repository (or its source archive)."
done

started=$SECONDS
tmp="$(mktemp -d "${TMPDIR:-/tmp}/campaign-calling-package.XXXXXX")" || fail "could not create a temporary folder (set TMPDIR to one with 300 MB free)."
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
mkdir -p "$tmp/src" "$tmp/home/.cache" "$tmp/tmp" "$tmp/npm-cache" || exit 1

# npm and the build tools see a HOME, a cache folder and a TMPDIR of their own (gulp's v8flags writes a cache file
# to ~/.cache/js-v8flags, or to TMPDIR when that folder is missing); npm still reads the user's npm settings
# (registry, CA file, proxy) from ~/.npmrc. The Node that runs this script comes first on PATH, so the tools'
# `#!/usr/bin/env node` finds it without a version manager's shim (which may look for its files under HOME).
export npm_config_userconfig="${npm_config_userconfig:-${HOME:-/nonexistent}/.npmrc}"
export HOME="$tmp/home" XDG_CACHE_HOME="$tmp/home/.cache" TMPDIR="$tmp/tmp"
export npm_config_cache="$tmp/npm-cache"
export npm_config_update_notifier=false npm_config_audit=false npm_config_fund=false
PATH="$(dirname "$(node -p process.execPath)"):$PATH"
export PATH

cp -R "${SOURCES[@]}" "$tmp/src/" || fail "could not copy the sources into $tmp/src."
[ -f .npmrc ] && { cp .npmrc "$tmp/src/" && cp .npmrc "$tmp/" || exit 1; }

# The install's root: the lockfile, and a package.json asking for the build's packages with package.json's ranges.
# npm keeps each locked entry that satisfies them (it never rewrites the files: --no-save) and drops the rest.
cp package-lock.json "$tmp/" || exit 1
node -e '
  const [pkg, out, ...names] = process.argv.slice(1);
  const p = require(pkg), devDependencies = {};
  for (const n of names) {
    const range = (p.devDependencies || {})[n];
    if (!range) { console.error(`package.json has no devDependency ${n}`); process.exit(1); }
    devDependencies[n] = range;
  }
  require("fs").writeFileSync(out, JSON.stringify({ name: p.name, version: p.version, private: true, devDependencies }, null, 2) + "\n");
' "$repo/package.json" "$tmp/package.json" "${BUILD_PACKAGES[@]}" || exit 1

say "installing the build's packages (${BUILD_PACKAGES[*]}) at package-lock.json's versions into $tmp"
# --engine-strict=false: isolated-vm, a runtime dependency of n8n-workflow the build never loads, asks for Node 24.
if ! (cd "$tmp" && npm install --no-save --ignore-scripts --no-audit --no-fund --engine-strict=false --loglevel=error); then
  fail "npm install failed (its message is above). Check that this machine reaches the npm registry, then run the same command again."
fi
# Every installed package must be the one package-lock.json pins at the same place (npm's record of the tree it wrote).
summary="$(node -e '
  const [lockFile, treeFile] = process.argv.slice(1);
  const lock = require(lockFile).packages, tree = require(treeFile).packages;
  const paths = Object.keys(tree), off = paths.filter((p) => !lock[p] || lock[p].version !== tree[p].version);
  if (off.length) {
    console.error("not at package-lock.json'"'"'s version: " + off.map((p) => `${p} ${tree[p].version} (locked: ${lock[p] ? lock[p].version : "absent"})`).join(", "));
    process.exit(1);
  }
  const names = process.argv.slice(3).map((n) => `${n} ${tree["node_modules/" + n].version}`);
  console.log(`${paths.length} packages (${names.join(", ")})`);
' "$tmp/package-lock.json" "$tmp/node_modules/.package-lock.json" "${BUILD_PACKAGES[@]}")" || fail "the installed tree differs from package-lock.json (listed above)."
installed_mb="$(du -sm "$tmp/node_modules" | cut -f1)"
downloaded_mb="$(du -sm "$tmp/npm-cache" | cut -f1)"
say "installed $summary: $installed_mb MB in node_modules, $downloaded_mb MB in npm's cache"

say "building (npm run build: gulp clean, tsc, gulp build:icons)"
(cd "$tmp/src" && npm run --silent build) || fail "the build failed (its message is above)."

tarball="$(cd "$tmp/src" && npm pack --silent --pack-destination "$repo")" || fail "npm pack failed (its message is above)."
tarball="$(basename "$tarball")"
[ -f "$repo/$tarball" ] || fail "npm pack named $tarball, which is not in $repo."
# sha256sum's format, so `sha256sum -c <file>.sha256` (or `shasum -a 256 -c`) checks a copy.
node -e '
  const fs = require("fs"), name = process.argv[1];
  const hash = require("crypto").createHash("sha256").update(fs.readFileSync(name)).digest("hex");
  fs.writeFileSync(name + ".sha256", `${hash}  ${name}\n`);
' "$tarball" || exit 1

say "wrote $tarball and $tarball.sha256 in $((SECONDS - started)) s with Node $(node --version), npm $(npm --version) (check a copy with: sha256sum -c $tarball.sha256)"
say "the temporary folder (build packages $installed_mb MB, npm cache $downloaded_mb MB) is removed now"
cat "$tarball.sha256"
