#!/usr/bin/env bash
# The install test (docs/RUNTIME.md, "The install test"): the default install, setup.sh's Docker path, run for real on
# this machine's dockerd, as an operator runs it: `setup.sh --non-interactive --answers FILE` with the stand-in images
# (docker-compose.test.yml; no registry is reachable here, docker/test/images.sh builds them from debootstrap), in a
# throwaway compose project, prefix and state, no domain (a self-signed certificate for this machine's IP, no
# certificate traffic), the chat model and the Telegram Bot API faked on this host (docker/test/fakes-main.ts). Then
# docker/test/check-stack.ts: through Caddy the judge, the assistant and the Telegram registration; every service
# healthy. setup.sh again over it: key and data kept. A backup, every volume wiped, a restore: the same back.
# `setup.sh --uninstall`: containers and code gone, data kept; `--uninstall --purge`: data gone. A cleanup trap
# removes what is left whatever happens, and stops the dockerd it started.
#   sudo scripts/test-docker.sh [--keep]     --keep leaves the stack and dockerd running after the checks
# Exit 0 passed, 1 failed, 77 skipped: without root (or apt for docker.io and debootstrap) it skips with the reason,
# and in CI (CI=true) it fails instead. scripts/test.sh runs it after the e2e tests, never beside them.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
stack_name="install test"
stack_keep=0
[ "${1:-}" = --keep ] && stack_keep=1
# shellcheck source=scripts/lib/docker-test-stack.sh
. scripts/lib/docker-test-stack.sh

stack_prerequisites
stack_begin install-test
stack_dockerd
stack_images
stack_fakes
stack_settings

check() { npx tsx docker/test/check-stack.ts "$settings" "$1" "$project"; }
fail() {
  echo "[install test] FAILED: $*" >&2
  compose ps 2>/dev/null || true
  compose logs --tail=60 2>/dev/null || true
  exit 1
}

log "setup.sh (the first install)"
"${setup[@]}" "${install_args[@]}" || fail "setup.sh (the first install)"
check first || fail "the first install's checks"

log "setup.sh again over it (an upgrade: key and data kept)"
"${setup[@]}" "${install_args[@]}" || fail "setup.sh (the re-run)"
check again || fail "the re-run's checks"

log "backup (scripts/docker-backup.sh), every volume wiped, restore (scripts/docker-restore.sh)"
files=(--compose-file "$prefix/docker-compose.yml" --compose-file "$repo/docker-compose.test.yml")
bash scripts/docker-backup.sh --state "$state" --project "$project" "${files[@]}" --out "$work/backup.tar.gz" ||
  fail "the backup"
compose down --volumes || fail "the wipe"
bash scripts/docker-restore.sh --state "$state" --project "$project" "${files[@]}" "$work/backup.tar.gz" ||
  fail "the restore"
check again || fail "the checks after the restore"
[ "$stack_keep" = 0 ] || exit 0

label=label=com.docker.compose.project=$project
log "setup.sh --uninstall: containers and code gone, data and settings kept"
"${setup[@]}" --uninstall || fail "setup.sh --uninstall"
[ -z "$(docker ps -aq --filter "$label")" ] || fail "--uninstall left containers: $(docker ps -a --filter "$label")"
[ ! -e "$prefix" ] || fail "--uninstall left the code in $prefix"
[ -n "$(docker volume ls -q --filter "$label")" ] || fail "--uninstall removed the data volumes"
[ -f "$settings" ] || fail "--uninstall removed the settings ($settings)"
echo "ok: --uninstall removed the containers and the code and kept the volumes and settings"

log "setup.sh --uninstall --purge: the data and settings gone too"
"${setup[@]}" --uninstall --purge || fail "setup.sh --uninstall --purge"
[ -z "$(docker volume ls -q --filter "$label")" ] || fail "--purge left volumes: $(docker volume ls -q --filter "$label")"
[ ! -e "$state" ] || fail "--purge left the settings folder $state"
echo "ok: --uninstall --purge removed the volumes and the settings"
log "passed"
