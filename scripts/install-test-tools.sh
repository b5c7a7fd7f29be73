#!/usr/bin/env bash
# Debian tools the tests use: real audio for a voice note (espeak-ng speaks, opusenc makes OGG/Opus), Caddy to
# validate the generated HTTPS config, Redis for n8n's queue mode, docker-compose to read docker-compose.yml, shellcheck, and docker.io and debootstrap for the install test. Installed with apt when missing and running as root; otherwise a note says what
# to install (the tests that need them then fail, naming it).
set -euo pipefail
missing=()
command -v espeak-ng >/dev/null 2>&1 || missing+=(espeak-ng)
command -v opusenc >/dev/null 2>&1 || missing+=(opus-tools)
command -v caddy >/dev/null 2>&1 || missing+=(caddy)
[ -x /usr/bin/redis-server ] || missing+=(redis-server)
command -v docker-compose >/dev/null 2>&1 || missing+=(docker-compose)
command -v shellcheck >/dev/null 2>&1 || missing+=(shellcheck)
# The install test (scripts/test-docker.sh, after the e2e tests): a dockerd and debootstrap for its stand-in images.
[ -x /usr/sbin/dockerd ] || missing+=(docker.io)
command -v debootstrap >/dev/null 2>&1 || missing+=(debootstrap)
[ -x /usr/sbin/dovecot ] || missing+=(dovecot-imapd) # the email channel's IMAP server (test/fakes/mail-servers.ts)
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "[test tools] installing ${missing[*]} (apt)"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
  echo "[test tools] missing: ${missing[*]} (sudo apt-get install ${missing[*]}); the voice, Caddy, queue-mode, compose, shellcheck and install tests need them"
fi
