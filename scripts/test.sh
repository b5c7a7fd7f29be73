#!/usr/bin/env bash
# Installs everything the tests need (idempotent; a second run reuses it), builds, and runs every test.
# Prints each failed test, then a closing line "tests: N passed, N failed".
#
# On a new machine most of the time goes to installing n8n (npm) and to the e2e tests, which mostly wait on n8n and
# its ticks, so the work overlaps:
#   background: Debian's packages (the test tools, Chromium)   |  n8n (npm, in its cache folder)
#   foreground: npm install, build, static checks;
# then the unit tests (judge, assistant[-tz], nodes: they need only Postgres 17, installed first in seconds, and the
# Debian tools) start in the background, and the e2e tests on the real n8n start as soon as n8n is installed.
# The unit tests' output is shown when they end. Extra arguments go to both vitest runs (filters).
# Then, once the e2e tests are done (never beside their stack; the unit tests may still run), the install test:
# setup.sh's Docker path for real, as root (scripts/test-docker.sh; docs/RUNTIME.md "The install test"). It runs
# without filters, or with INSTALL_TEST=1; INSTALL_TEST=0 leaves it out.
set -euo pipefail
cd "$(dirname "$0")/.."
# npm's warnings (deprecations, engines, this machine's own npmrc keys) are noise on a newcomer's screen; errors
# still show. npm_config_loglevel=warn (or notice) brings them back.
export npm_config_loglevel=${npm_config_loglevel:-error}
# Test mode: nothing is downloaded but from the npm registry and Debian's archive.
export JUDGE_ASSISTANT_OFFLINE=${JUDGE_ASSISTANT_OFFLINE:-1}
export ONNXRUNTIME_NODE_INSTALL=skip

mkdir -p .runtime
logs=.runtime/test-logs
rm -rf "$logs" && mkdir -p "$logs"
started=$SECONDS
say() { echo "[test.sh $((SECONDS - started)) s] $*"; }

# Background installs, each in its own process group (stopped whole if this script ends first); each one's output
# is shown when it is waited for.
bash scripts/runtime/install.sh node24 postgres
setsid bash -c 'bash scripts/install-test-tools.sh && bash scripts/runtime/install.sh chromium' >"$logs/apt.log" 2>&1 &
apt_pid=$!
setsid bash scripts/runtime/install.sh n8n >"$logs/n8n-install.log" 2>&1 &
n8n_pid=$!
# shellcheck disable=SC2064 # the PIDs are known now
trap "kill -- -$apt_pid -$n8n_pid 2>/dev/null || true" EXIT

waitFor() { # name pid log
  local status=0
  wait "$2" || status=$?
  cat "$3"
  if [ "$status" != 0 ]; then
    say "$1 failed (exit $status)"
    echo "tests: 0 passed, 1 failed"
    exit "$status"
  fi
  say "$1 ready"
}

npm install --ignore-scripts --no-audit --no-fund
npm run build
say "installed and built"

# Static checks first: strict TypeScript everywhere, the one lint setup (incl. n8n's community-node rules), and the
# formatter (prettier; `npm run format` fixes what it reports).
npm run typecheck
npm run lint
npm run format:check
say "static checks passed"

status=0
# With filters, one of the two runs may have no file to run.
filters=()
[ $# -gt 0 ] && filters=(--passWithNoTests "$@")
vitest=(npx vitest run --reporter=default --reporter=json)
reports=(.runtime/vitest-unit.json)
[ "${E2E:-1}" != 0 ] && reports+=(.runtime/vitest-e2e.json)
rm -f .runtime/vitest-*.json

waitFor "Debian's packages" "$apt_pid" "$logs/apt.log"
say "vitest: unit (in the background; its output follows when it ends)"
setsid "${vitest[@]}" --outputFile=.runtime/vitest-unit.json \
  --project judge --project assistant --project assistant-tz --project nodes "${filters[@]}" >"$logs/unit.log" 2>&1 &
unit_pid=$!
# shellcheck disable=SC2064 # the PIDs are known now
trap "kill -- -$apt_pid -$n8n_pid -$unit_pid 2>/dev/null || true" EXIT
if [ "${E2E:-1}" != 0 ]; then
  waitFor "n8n's install" "$n8n_pid" "$logs/n8n-install.log"
  say "vitest: e2e"
  "${vitest[@]}" --outputFile=.runtime/vitest-e2e.json --project e2e "${filters[@]}" || status=$?
fi
install_test=${INSTALL_TEST:-1}
[ $# -eq 0 ] || install_test=${INSTALL_TEST:-0}
install_result=left-out
if [ "$install_test" != 0 ]; then
  say "install test: setup.sh's Docker path for real (scripts/test-docker.sh)"
  install_status=0
  bash scripts/test-docker.sh || install_status=$?
  case "$install_status" in
    0) install_result=passed ;;
    77) install_result=skipped ;;
    *) install_result=failed status=1 ;;
  esac
  say "install test $install_result"
fi
unit_status=0
wait "$unit_pid" || unit_status=$?
cat "$logs/unit.log"
[ "$unit_status" = 0 ] || status=$unit_status
say "done"

# shellcheck disable=SC2016 # JavaScript, not shell
INSTALL_RESULT=$install_result node -e '
const fs = require("fs");
let passed = 0, failed = 0, skipped = 0;
// The install test (scripts/test-docker.sh) counts as one test.
const install = process.env.INSTALL_RESULT;
if (install === "passed") passed++;
if (install === "skipped") skipped++;
if (install === "failed") { failed++; console.log("FAILED install test (scripts/test-docker.sh): its output is above"); }
for (const file of process.argv.slice(1)) {
  if (!fs.existsSync(file)) { failed++; continue; }
  const r = JSON.parse(fs.readFileSync(file, "utf8"));
  passed += r.numPassedTests; failed += r.numFailedTests; skipped += r.numPendingTests;
  for (const suite of r.testResults) {
    const bad = suite.assertionResults.filter((t) => t.status === "failed");
    if (suite.status === "failed" && bad.length === 0) console.log(`FAILED ${suite.name}: ${suite.message}`);
    for (const t of bad) console.log(`FAILED ${suite.name} > ${t.fullName}\n  ${(t.failureMessages[0] ?? "").split("\n")[0]}`);
  }
}
console.log(`tests: ${passed} passed, ${failed} failed` + (skipped ? `, ${skipped} skipped` : ""));
' "${reports[@]}"
exit "$status"
