#!/usr/bin/env bash
# Backs up an install's state: the Postgres data (the assistant's tables and n8n's, its credentials encrypted), n8n's
# user folder, and local.env (the generated secrets, among them N8N_ENCRYPTION_KEY, without which the credentials
# cannot be read). A cold copy: the stack must be stopped, or name its systemd service and it is stopped for the copy
# and started again. The archive is mode 600: it holds every secret of the install.
#
#   sudo scripts/backup.sh [--state /var/lib/judge-assistant] [--out FILE] [--service judge-assistant]
set -euo pipefail

state_dir=/var/lib/judge-assistant
out=
service=
while [ $# -gt 0 ]; do
  case "$1" in
    --state) state_dir=${2:?--state needs a folder}; shift ;;
    --out) out=${2:?--out needs a file}; shift ;;
    --service) service=${2:?--service needs a unit name}; shift ;;
    -h|--help) sed -n '2,8p' "$0"; exit 0 ;;
    *) echo "backup.sh: unknown option \"$1\" (see --help)" >&2; exit 2 ;;
  esac
  shift
done
[ -f "$state_dir/local.env" ] || { echo "backup.sh: --state: no install in $state_dir (no local.env)" >&2; exit 2; }
out=${out:-$PWD/judge-assistant-backup-$(date -u +%Y%m%dT%H%M%SZ).tar.gz}

# shellcheck source=scripts/lib/stack-running.sh
source "$(dirname "$0")/lib/stack-running.sh"

if [ -n "$service" ]; then
  systemctl stop "$service"
  trap 'systemctl start "$service"' EXIT
fi
if stack_running "$state_dir"; then
  echo "backup.sh: the stack is running on $state_dir: stop it first (systemctl stop judge-assistant), or give --service" >&2
  exit 1
fi

umask 077
# -h: a data folder kept elsewhere and linked from the state (root runs) is copied, not the link.
tar -czhf "$out" -C "$state_dir" .
chmod 600 "$out"
echo "backup: $out ($(du -h "$out" | cut -f1)): the database, n8n's user folder and local.env with the install's secrets"
