# One image for the api, the worker, the CLI and migrations; docker-compose.yml picks the command.
FROM node:20-bookworm-slim
WORKDIR /app
ENV CI=true
COPY . .
RUN npx --yes pnpm@10 install --frozen-lockfile
ENV NODE_ENV=production
CMD ["npx", "--yes", "pnpm@10", "--filter", "@voice/api", "start"]
