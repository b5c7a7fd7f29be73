#!/usr/bin/env bash
# Installs everything the tests need (idempotent; a second run reuses it), builds, and runs every test.
# Prints a closing line "tests: N passed, N failed".
set -euo pipefail
cd "$(dirname "$0")/.."
# npm's warnings (deprecations, engines, this machine's own npmrc keys) are noise on a newcomer's screen; errors
# still show. npm_config_loglevel=warn (or notice) brings them back.
export npm_config_loglevel=${npm_config_loglevel:-error}
# Test mode: nothing is downloaded but from the npm registry and Debian's archive (sqlite3 is built from source).
export JUDGE_ASSISTANT_OFFLINE=${JUDGE_ASSISTANT_OFFLINE:-1}

bash scripts/install.sh
bash scripts/install-test-tools.sh

# Static checks first: strict TypeScript everywhere, the one lint setup (incl. n8n's community-node rules), and the
# formatter (prettier; `npm run format` fixes what it reports).
npm run typecheck
npm run lint
npm run format:check

mkdir -p .runtime
report=.runtime/vitest-report.json
rm -f "$report"
status=0
npx vitest run --reporter=default --reporter=json --outputFile="$report" "$@" || status=$?

# shellcheck disable=SC2016 # JavaScript, not shell
node -e '
const fs = require("fs");
const file = process.argv[1];
if (!fs.existsSync(file)) { console.log("tests: 0 passed, 1 failed"); process.exit(0); }
const r = JSON.parse(fs.readFileSync(file, "utf8"));
console.log(`tests: ${r.numPassedTests} passed, ${r.numFailedTests} failed` + (r.numPendingTests ? `, ${r.numPendingTests} skipped` : ""));
' "$report"
exit "$status"
