# shellcheck shell=bash
# Sourced by the Docker backup scripts: runs Compose, the plugin (docker compose) or the
# standalone docker-compose, whichever is installed; and compose() for one installed project.
compose_command() {
  if docker compose version >/dev/null 2>&1; then
    docker compose "$@"
  elif command -v docker-compose >/dev/null 2>&1; then
    docker-compose "$@"
  else
    echo "Docker Compose is not installed (apt-get install docker-compose-v2, or docker-compose)" >&2
    return 127
  fi
}

# Sets up compose() for a project: its settings file <state>/compose.env and the compose files given (default: the
# installed one), each checked.   compose_project SCRIPT PROJECT STATE_DIR [FILE …]
compose_project() {
  local script=$1 file
  compose_project_name=$2
  compose_state_dir=$3
  shift 3
  [ $# -gt 0 ] || set -- /opt/judge-assistant/docker-compose.yml
  compose_args=()
  for file in "$@"; do
    [ -f "$file" ] || { echo "$script: --compose-file: no $file" >&2; exit 2; }
    compose_args+=(-f "$file")
  done
}

compose() {
  compose_command -p "$compose_project_name" --env-file "$compose_state_dir/compose.env" "${compose_args[@]}" "$@"
}
