# The project's one image (docker-compose.yml): the judge server, the browser service (Debian's Chromium) and the
# assistant-setup steps, all built from this checkout; it also builds the n8n nodes package that assistant-setup
# hands to n8n. NODE_IMAGE is pinned here; the Docker tests give a locally built one (docker-compose.test.yml).
ARG NODE_IMAGE=node:24.11.1-bookworm-slim
FROM ${NODE_IMAGE}
RUN apt-get update \
  && apt-get install -y --no-install-recommends chromium fonts-dejavu-core ca-certificates \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY . .
# No install scripts: onnxruntime-node would download binaries (the judge here uses an OpenAI-compatible server).
# doctor (the compose service doctor) as one bundle beside its sources, for node without tsx; require.main is cleared
# so that the modules it includes do not run their own command lines. The image has no test/ (.dockerignore): a
# script's test-only import (prompt-prefix.ts's Ollama fake, behind its own command line) stays out of the bundle.
RUN ONNXRUNTIME_NODE_INSTALL=skip npm install --ignore-scripts --no-audit --no-fund \
  && npm run build \
  && node_modules/.bin/esbuild scripts/doctor.ts --bundle --platform=node --target=node24 \
    --define:require.main=undefined --outfile=scripts/doctor.bundle.js --external:../test/* --log-level=warning \
  && npm prune --omit=dev --ignore-scripts --no-audit --no-fund \
  && install -d -o node -g node -m 0700 /data/profiles /state \
  && install -d -o node -g node -m 0755 /nodes
USER node
CMD ["node", "judge/dist/cli/main.js", "serve", "--host", "0.0.0.0", "--port", "8787"]
