# shellcheck shell=bash
# Sourced by the Docker backup scripts: runs Compose, the plugin (docker compose) or the
# standalone docker-compose, whichever is installed.
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
