# syntax=docker/dockerfile:1
# One image for the whole monorepo; each container picks its process with its command, e.g.
#   docker run --env-file … acs node services/catalog/dist/main.js
# (docker-compose.yml and k8s/ set it per container). Nothing secret is baked in: every secret
# comes from the environment at run time.

ARG NODE_IMAGE=node:20-bookworm-slim

FROM ${NODE_IMAGE} AS base
WORKDIR /app
ENV npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false

# Only the lockfile and the workspaces' package.json files, so the two `npm ci` layers below are
# rebuilt when dependencies change, not on every source edit.
FROM base AS manifests
COPY . /src
RUN cd /src \
 && mkdir -p /manifests \
 && cp --parents package.json package-lock.json libs/*/package.json services/*/package.json \
      gateway/package.json launcher/package.json bench/package.json test/support/package.json /manifests/

# --ignore-scripts: these machines' npm blocks install scripts, and nothing here needs one: bcrypt
# ships prebuilt binaries for linux x64/arm64 (glibc and musl) that node-gyp-build loads at run
# time; @swc/core and unrs-resolver (test tooling) take their binaries from optional packages.
FROM base AS build
COPY --from=manifests /manifests/ ./
RUN npm ci --ignore-scripts
COPY . .
RUN npm run build \
 && mkdir -p /out \
 && cp -r --parents libs/*/dist services/*/dist gateway/dist services/*/migrations services/catalog/seed \
      services/dashboard/public deploy/redis deploy/rabbitmq /out/

FROM base AS prod-deps
COPY --from=manifests /manifests/ ./
RUN npm ci --omit=dev --ignore-scripts

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production
WORKDIR /app
# Production node_modules (workspace packages are symlinks into libs/, services/, gateway/), then
# the compiled code and the files it reads at run time: SQL migrations, the catalog seed and the
# dashboard's stylesheet (services/dashboard/public: the dashboard does not start without it).
COPY --from=prod-deps /app/ ./
COPY --from=build /out/ ./
# Files stay owned by root: the process can read its code but not change it. The uid is numeric
# (the base image's `node` user) so Kubernetes' runAsNonRoot can verify it.
USER 1000:1000
# Service ports (keys 8081, catalog 8082, identity 8083, device 8084, billing 8085, webhooks 8087),
# the gateway 8080 and its metrics 9464, the account dashboard 8086. No HEALTHCHECK: the port
# depends on the process; compose and Kubernetes probe /healthz and /readyz per container.
EXPOSE 8080 8081 8082 8083 8084 8085 8086 8087 9464
CMD ["node", "gateway/dist/main.js"]
