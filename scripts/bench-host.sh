#!/usr/bin/env bash
# The seed's host, measured (docs/BENCHMARKS.md, "The seed's host"; issue 38): setup.sh's Docker path brought up for
# real as the install test does (scripts/lib/docker-test-stack.sh: its own dockerd, the stand-in images, the fakes on
# this host, setup.sh --non-interactive with docker-compose.test.yml), checked once (docker/test/check-stack.ts), then
# scripts/bench-host.ts measures memory and disk. Not part of the test command; the stack lock, as every real stack:
#   sudo flock /work/notes/stack.lock scripts/bench-host.sh [--write]     --write fills docs/BENCHMARKS.md
# Everything it made is removed at the end (the images stay in dockerd's data root, as the install test leaves them).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
stack_name="host benchmark"
stack_keep=0
# shellcheck source=scripts/lib/docker-test-stack.sh
. scripts/lib/docker-test-stack.sh

stack_prerequisites
stack_begin bench-host
stack_dockerd
stack_images
stack_fakes
stack_settings

log "setup.sh (the install)"
"${setup[@]}" "${install_args[@]}"
npx tsx docker/test/check-stack.ts "$settings" first "$project"
log "measuring (scripts/bench-host.ts)"
npx tsx scripts/bench-host.ts "$settings" "$project" "$prefix" "$work" "$@"
log "done"
