#!/usr/bin/env bash
# Restores a Docker install from scripts/docker-backup.sh's archive: the current state is backed up beside it first
# (pre-restore-<time>.tar.gz in the state folder), then the stack is taken down, its volumes replaced by the archive's,
# compose.env and the HTTPS files put back, and the stack started again.
#
#   sudo scripts/docker-restore.sh [--state /var/lib/judge-assistant] [--compose-file /opt/judge-assistant/docker-compose.yml …]
#                                  [--project judge-assistant] FILE
set -euo pipefail

state_dir=/var/lib/judge-assistant
compose_files=()
project=judge-assistant
archive=
while [ $# -gt 0 ]; do
  case "$1" in
    --state) state_dir=${2:?--state needs a folder}; shift ;;
    --compose-file) compose_files+=("${2:?--compose-file needs a file}"); shift ;;
    --project) project=${2:?--project needs a name}; shift ;;
    -h|--help) sed -n '2,8p' "$0"; exit 0 ;;
    -*) echo "docker-restore.sh: unknown option \"$1\" (see --help)" >&2; exit 2 ;;
    *) archive=$1 ;;
  esac
  shift
done
if [ -z "$archive" ] || [ ! -r "$archive" ]; then
  echo "docker-restore.sh: give the backup archive to restore (readable)" >&2
  exit 2
fi
# shellcheck source=scripts/lib/compose.sh
source "$(dirname "$0")/lib/compose.sh"
compose_project "docker-restore.sh" "$project" "$state_dir" "${compose_files[@]}"


work=$(mktemp -d)
chmod 700 "$work"
trap 'rm -rf "$work"' EXIT
tar -xzf "$archive" -C "$work"
[ -f "$work/compose.env" ] || { echo "docker-restore.sh: $archive is not a docker-backup.sh archive (no compose.env)" >&2; exit 2; }

if [ -f "$state_dir/compose.env" ] && [ -n "$(docker volume ls -q --filter "label=com.docker.compose.project=$project")" ]; then
  before="$state_dir/pre-restore-$(date -u +%Y%m%dT%H%M%SZ).tar.gz"
  echo "== the current state first: $before"
  backup_args=(--state "$state_dir" --project "$project" --out "$before")
  for file in "${compose_files[@]}"; do backup_args+=(--compose-file "$file"); done
  bash "$(dirname "$0")/docker-backup.sh" "${backup_args[@]}"
fi
install -d -m 0700 "$state_dir"
cp -p "$work/compose.env" "$state_dir/compose.env"
chmod 600 "$state_dir/compose.env"
if [ -d "$work/caddy" ]; then rm -rf "$state_dir/caddy" && cp -rp "$work/caddy" "$state_dir/caddy"; fi

echo "== replacing the volumes"
compose down --remove-orphans
for file in "$work"/volume-*.tar.gz; do
  volume=$(basename "$file" .tar.gz)
  volume=${volume#volume-}
  docker volume rm "$volume" >/dev/null 2>&1 || true
  # With Compose's labels, so that compose takes it as its own (compose up --no-start would wait on the one-shots).
  docker volume create --label "com.docker.compose.project=$project" \
    --label "com.docker.compose.volume=${volume#"$project"_}" "$volume" >/dev/null
  docker run --rm --network none --user 0 -v "$volume:/volume" -v "$work:/backup:ro" judge-assistant/app:local \
    tar -C /volume -xzf "/backup/$(basename "$file")"
done
echo "== starting the stack"
compose up -d
echo "restored from $archive"
