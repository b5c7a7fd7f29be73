#!/usr/bin/env bash
# Installs the project's dependencies and builds it. Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."
# npm's warnings (deprecations, engines, this machine's own npmrc keys) are noise on a newcomer's screen; errors
# still show. npm_config_loglevel=warn (or notice) brings them back.
export npm_config_loglevel=${npm_config_loglevel:-error}

# onnxruntime-node's postinstall downloads CUDA files; its CPU runtime is already inside the package.
export ONNXRUNTIME_NODE_INSTALL=skip
# n8n-workflow (a dev/peer dependency) pulls isolated-vm, whose native build needs Node 24; the project's own
# code needs no install scripts, so none run here. n8n itself is installed by scripts/runtime (Node 24).
npm install --ignore-scripts --no-audit --no-fund
npm run build

if [ -f scripts/runtime/install.sh ]; then
  bash scripts/runtime/install.sh
fi
