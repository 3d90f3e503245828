# One image for every app of the monorepo. Pick the app at run time with APP
# (gateway, search-orchestrator, partner-adapter, checks, delivery, sandbox, ops),
# or bake a default in at build time: docker build --build-arg APP=checks .
# docker-compose.yml builds it once and runs every service from it.
#
# Node.js 24, an LTS line (22, the other supported one, runs it too).
# Behind a TLS-inspecting proxy, give the build your CA bundle as the secret
# `build_ca` (docker-compose.yml: BUILD_CA_BUNDLE=/path/to/ca.pem); it is read
# by `npm ci` alone and never lands in a layer of the image:
#   docker build --secret id=build_ca,src=/etc/ssl/certs/ca-certificates.crt .

ARG NODE_IMAGE=node:24-bookworm-slim

# ---- deps: every dependency, dev ones included (the build needs tsc) ----
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN --mount=type=secret,id=build_ca,required=false \
    if [ -s /run/secrets/build_ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/build_ca; fi; \
    npm ci --no-audit --no-fund

# ---- build: compile to dist/, then drop the dev dependencies ----
FROM deps AS build
COPY tsconfig.json tsconfig.build.json ./
COPY libs ./libs
COPY apps ./apps
RUN npm run build \
 && npm prune --omit=dev --no-audit --no-fund

# ---- runtime: compiled code and production dependencies only, as user node ----
FROM ${NODE_IMAGE} AS runtime
ARG APP=gateway
ENV NODE_ENV=production \
    APP=${APP} \
    HOST=0.0.0.0
WORKDIR /app
COPY --from=build --chown=node:node /app/package.json ./package.json
COPY --from=build --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/dist ./dist
COPY --chown=node:node demo ./demo
USER node

# Gateway 3000 (PORT: the public API) and 9000 (MANAGEMENT_PORT: health and metrics), workers 3001-3004
# (HTTP_PORT: health and metrics), sandbox 4100 (SANDBOX_PORT) and 4101 (MANAGEMENT_PORT). Every port on HOST.
EXPOSE 3000 3001 3002 3003 3004 4100 4101 9000

# Liveness of whichever app runs, on its management port (the same defaults as libs/config).
# The ops CLI has no server: it is always "healthy".
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "const e=process.env,a=e.APP,d={gateway:e.MANAGEMENT_PORT||9000,sandbox:e.MANAGEMENT_PORT||4101,'search-orchestrator':3001,'partner-adapter':3002,checks:3003,delivery:3004},p=a==='gateway'||a==='sandbox'?d[a]:e.HTTP_PORT||d[a];if(!p)process.exit(0);fetch('http://127.0.0.1:'+p+'/health/live',{signal:AbortSignal.timeout(2500)}).then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]

# `exec`: node replaces the shell as PID 1 and gets SIGTERM itself (graceful drain).
CMD ["sh", "-c", "exec node dist/apps/$APP/src/main.js"]
