#!/usr/bin/env bash
# Backs up a Docker install (setup.sh's default): every volume of the compose project (Postgres with the assistant's
# tables and n8n's encrypted credentials, n8n's folder, the installation's n8n API key, users' browser sign-ins),
# the settings file compose.env (every secret, N8N_ENCRYPTION_KEY among them) and the HTTPS files. A cold copy: the
# stack is stopped for it and started again. The archive is mode 600: it holds every secret of the install.
#
#   sudo scripts/docker-backup.sh [--state /var/lib/judge-assistant] [--compose-file /opt/judge-assistant/docker-compose.yml …]
#                                 [--project judge-assistant] [--out FILE]
set -euo pipefail

state_dir=/var/lib/judge-assistant
compose_files=()
project=judge-assistant
out=
while [ $# -gt 0 ]; do
  case "$1" in
    --state) state_dir=${2:?--state needs a folder}; shift ;;
    --compose-file) compose_files+=("${2:?--compose-file needs a file}"); shift ;;
    --project) project=${2:?--project needs a name}; shift ;;
    --out) out=${2:?--out needs a file}; shift ;;
    -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
    *) echo "docker-backup.sh: unknown option \"$1\" (see --help)" >&2; exit 2 ;;
  esac
  shift
done
[ -f "$state_dir/compose.env" ] || { echo "docker-backup.sh: --state: no Docker install in $state_dir (no compose.env)" >&2; exit 2; }
# shellcheck source=scripts/lib/compose.sh
source "$(dirname "$0")/lib/compose.sh"
compose_project "docker-backup.sh" "$project" "$state_dir" "${compose_files[@]}"
out=${out:-$PWD/judge-assistant-docker-backup-$(date -u +%Y%m%dT%H%M%SZ).tar.gz}

mapfile -t volumes < <(docker volume ls -q --filter "label=com.docker.compose.project=$project")
[ ${#volumes[@]} -gt 0 ] || { echo "docker-backup.sh: the project $project has no volumes" >&2; exit 2; }
work=$(mktemp -d)
chmod 700 "$work"
restart() { compose up -d >/dev/null 2>&1 || echo "docker-backup.sh: starting the stack again failed: run: docker compose ... up -d" >&2; rm -rf "$work"; }
echo "== stopping the stack for a consistent copy"
compose stop
trap restart EXIT
for volume in "${volumes[@]}"; do
  # The project's own image (it has tar), as root: Postgres' data folder is its user's alone.
  docker run --rm --network none --user 0 -v "$volume:/volume:ro" -v "$work:/backup" judge-assistant/app:local \
    tar -C /volume -czf "/backup/volume-$volume.tar.gz" .
done
cp -p "$state_dir/compose.env" "$work/compose.env"
[ ! -d "$state_dir/caddy" ] || cp -rp "$state_dir/caddy" "$work/caddy"
umask 077
tar -czf "$out" -C "$work" .
chmod 600 "$out"
echo "backup: $out ($(du -h "$out" | cut -f1)): ${#volumes[@]} volumes, compose.env with the install's secrets, the HTTPS files"
