#!/usr/bin/env bash
# The README's run command: the product on its embedded default (Postgres 17 + n8n + the judge server, no Docker).
# Installs what is missing (a second run reuses it), keeps state in .runtime/local/ (settings and generated keys in
# .runtime/local/local.env, mode 600), prints the editor URL and the owner login; Ctrl-C stops everything.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install.sh
exec node_modules/.bin/tsx scripts/runtime/local.ts
