# syntax=docker/dockerfile:1
# rpc-gateway: build with the dev dependencies, run with the production ones only, as a non-root user.
#   docker build -t rpc-gateway:0.1.0 .
#   docker run --rm -p 26657:26657 -p 8545:8545 -p 8546:8546 -p 26660:26660 rpc-gateway:0.1.0
# test/e2e/container-install.test.ts follows these steps without Docker: keep them plain.

ARG NODE_VERSION=24

FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# No install scripts: native modules ship prebuilt binaries, and the `node` dev dependency's script (which
# fetches the Node.js that npm scripts run on a machine with an older one) is not needed on node:24.
RUN --mount=type=cache,target=/root/.npm npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY plugins ./plugins
RUN npm run build && chmod 755 dist/main.js

FROM node:${NODE_VERSION}-bookworm-slim AS runtime
ENV NODE_ENV=production \
    RPCGW_HOME=/home/node/.rpc-gateway \
    NODE_PATH=/app/node_modules \
    PATH=/app/node_modules/.bin:$PATH
WORKDIR /app
COPY package.json package-lock.json ./
# Production dependencies only. The package links itself into node_modules, as an install of it would:
# its bin is the entrypoint, and a plugin mounted anywhere requires "rpc-gateway/plugin-api" through
# NODE_PATH (the very module the gateway runs).
RUN --mount=type=cache,target=/root/.npm npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
    && ln -s .. node_modules/rpc-gateway \
    && mkdir -p node_modules/.bin \
    && ln -s ../../dist/main.js node_modules/.bin/rpc-gateway
COPY --from=build /app/dist ./dist
COPY --from=build /app/plugins ./plugins
USER 1000:1000
EXPOSE 26657 8545 8546 26660
ENTRYPOINT ["rpc-gateway"]
# Inside a container the listeners must be reachable from outside it: 0.0.0.0. Metrics, /livez and
# /readyz on :26660. The Helm chart runs `start` alone, with these addresses in its config files.
CMD ["start", "--rpc.laddr", "tcp://0.0.0.0:26657", "--json-rpc.address", "0.0.0.0:8545", "--json-rpc.ws-address", "0.0.0.0:8546", "--instrumentation.prometheus", "true"]
