# syntax=docker/dockerfile:1
# Production images of the api (with the dashboard's static files), the worker, the media server (live
# conversations) and the CLI (which also applies migrations), built in stages: prune the workspace to
# what the services need, install, compile (`pnpm build`), then copy each service with its production
# dependencies only (`pnpm deploy --prod`, from the workspace's lockfile: `inject-workspace-packages` for
# the deploy only, so that development keeps its linked packages) into a small image that runs it as the
# unprivileged `node` user, with `node` itself as the process that receives SIGTERM. Each service's ENV MALLOC_ARENA_MAX and CMD are its package's `start` script (its
# memory budget, docs/operations.md).
#   docker build --target api -t voice-api .      (also: worker, media, cli)
ARG NODE_VERSION=22

FROM node:${NODE_VERSION}-bookworm-slim AS base
ENV CI=true PNPM_HOME=/pnpm PATH=/pnpm:$PATH
RUN npm install --global pnpm@10.34.9
WORKDIR /repo

FROM base AS pruned
COPY . .
RUN pnpm dlx turbo@2.5 prune @voice/api @voice/worker @voice/media @voice/cli @voice/web --docker

FROM base AS build
COPY --from=pruned /repo/out/json/ ./
COPY --from=pruned /repo/out/pnpm-lock.yaml ./pnpm-lock.yaml
RUN pnpm install --frozen-lockfile
COPY --from=pruned /repo/out/full/ ./
RUN pnpm turbo run build --filter=@voice/api --filter=@voice/worker --filter=@voice/media --filter=@voice/cli \
      --filter=@voice/web \
 && pnpm --filter @voice/api deploy --prod --config.inject-workspace-packages=true /out/api \
 && pnpm --filter @voice/worker deploy --prod --config.inject-workspace-packages=true /out/worker \
 && pnpm --filter @voice/media deploy --prod --config.inject-workspace-packages=true /out/media \
 && pnpm --filter @voice/cli deploy --prod --config.inject-workspace-packages=true /out/cli

FROM node:${NODE_VERSION}-bookworm-slim AS runtime
ENV NODE_ENV=production
# Debian's eSpeak NG program: the offline speech (agents' fallback voice, voice samples) at about a
# twelfth of the CPU of the WebAssembly build the services fall back to without it.
RUN apt-get update && apt-get install -y --no-install-recommends espeak-ng && rm -rf /var/lib/apt/lists/*
# Where the media server writes recordings and the api reads them (one volume shared by both, or S3).
RUN mkdir -p /recordings && chown node:node /recordings
ENV RECORDINGS_DIR=/recordings
WORKDIR /app
USER node

FROM runtime AS cli
COPY --from=build --chown=node:node /out/cli ./
ENTRYPOINT ["node", "--enable-source-maps", "bin/voice.mjs"]

FROM runtime AS worker
COPY --from=build --chown=node:node /out/worker ./
ENV WORKER_HEALTH_HOST=0.0.0.0 MALLOC_ARENA_MAX=2
EXPOSE 3001
CMD ["node", "--enable-source-maps", "--max-old-space-size=256", "dist/main.js"]

FROM runtime AS media
COPY --from=build --chown=node:node /out/media ./
ENV MEDIA_HOST=0.0.0.0 MEDIA_PORT=3002 MALLOC_ARENA_MAX=2
EXPOSE 3002
CMD ["node", "--enable-source-maps", "--max-old-space-size=512", "dist/main.js"]

FROM runtime AS api
COPY --from=build --chown=node:node /out/api ./
# The dashboard's static files, served by the api under /app.
COPY --from=build --chown=node:node /repo/apps/web/dist ./web
ENV HOST=0.0.0.0 PORT=3000 MALLOC_ARENA_MAX=2 DASHBOARD_DIR=/app/web
EXPOSE 3000
CMD ["node", "--enable-source-maps", "--max-old-space-size=160", "dist/main.js"]
