# shellcheck shell=bash
# Sourced by scripts/backup.sh and restore.sh: whether a Postgres of the state folder $1 still runs (a postmaster.pid
# under it names a live process; a data folder linked from the state counts).
stack_running() {
  local pid_file pid
  while IFS= read -r -d '' pid_file; do
    pid=$(head -n 1 "$pid_file" 2>/dev/null || true)
    if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then return 0; fi
  done < <(find -L "$1" -maxdepth 3 -name postmaster.pid -print0 2>/dev/null)
  return 1
}
