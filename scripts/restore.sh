#!/usr/bin/env bash
# Restores a backup made by scripts/backup.sh into an install's state folder. The stack must be stopped (or name its
# systemd service). The current state is kept beside it as <state>.before-restore-<time>, never deleted.
#
#   sudo scripts/restore.sh [--state /var/lib/judge-assistant] [--service judge-assistant] BACKUP.tar.gz
set -euo pipefail

state_dir=/var/lib/judge-assistant
service=
archive=
while [ $# -gt 0 ]; do
  case "$1" in
    --state) state_dir=${2:?--state needs a folder}; shift ;;
    --service) service=${2:?--service needs a unit name}; shift ;;
    -h|--help) sed -n '2,6p' "$0"; exit 0 ;;
    --*) echo "restore.sh: unknown option \"$1\" (see --help)" >&2; exit 2 ;;
    *) archive=$1 ;;
  esac
  shift
done
[ -n "$archive" ] || { echo "restore.sh: give the backup file (scripts/backup.sh made it)" >&2; exit 2; }
[ -r "$archive" ] || { echo "restore.sh: cannot read $archive" >&2; exit 2; }
if ! tar -tzf "$archive" ./local.env >/dev/null 2>&1; then
  echo "restore.sh: $archive is not a backup of an install (no local.env in it)" >&2
  exit 2
fi

# shellcheck source=scripts/lib/stack-running.sh
source "$(dirname "$0")/lib/stack-running.sh"

if [ -n "$service" ]; then
  systemctl stop "$service"
  trap 'systemctl start "$service"' EXIT
fi
if [ -d "$state_dir" ] && stack_running "$state_dir"; then
  echo "restore.sh: the stack is running on $state_dir: stop it first, or give --service" >&2
  exit 1
fi

kept=
if [ -e "$state_dir" ]; then
  kept="$state_dir.before-restore-$(date -u +%Y%m%dT%H%M%SZ)"
  mv "$state_dir" "$kept"
fi
mkdir -p "$state_dir"
# The state folder's own owner and mode come from the archive (./); owners of files too when run as root.
tar -xzpf "$archive" -C "$state_dir"
echo "restored $archive into $state_dir${kept:+ (the state before is kept in $kept)}"
