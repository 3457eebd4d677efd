# Container images of the gateway (docs: "Deploying"). Two targets:
#   docker build --target gateway -t norsk-manager-gateway .
#       the gateway alone, in front of a Manager (MANAGER_ADDRESS); no SQLite, no compiler.
#   docker build --target reference-manager -t norsk-reference-manager .
#       the reference Manager (gRPC on 6790, SQLite under /data), with better-sqlite3.
# Each installs the one tarball that `npm pack` makes of its package, as an operator would, with
# `npm install --omit=dev`: each tarball carries the contract it imports (bundleDependencies).
# The runtime stages get only the installed package and its production dependencies, on the
# slim image, as a user without privileges.
# test/deploy/dockerfile.test.ts runs these steps outside a container, reading this file.

# Node 24, the active LTS (the suite runs on 20 and 24). The full image has python3, make and
# g++ for the one native module (better-sqlite3), when no prebuilt binary can be fetched.
ARG NODE_IMAGE=node:24-bookworm
ARG NODE_SLIM_IMAGE=node:24-bookworm-slim

# Build: the lockfile's exact dependencies, the TypeScript build of every package, and one
# installable tarball per program (the build links the reference Manager's bundled contract
# where `npm pack --workspace` packs it from).
FROM ${NODE_IMAGE} AS build
WORKDIR /src
COPY package.json package-lock.json ./
COPY packages/contract/package.json packages/contract/
COPY packages/reference-manager/package.json packages/reference-manager/
COPY packages/client/package.json packages/client/
# No install scripts: the build needs only tsc, and `prepare` would build before the sources are here.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json README.md openapi.yaml ./
COPY scripts/build.mjs scripts/link-bundled.mjs scripts/
COPY src src
COPY schemas schemas
COPY packages/contract/tsconfig.build.json packages/contract/
COPY packages/contract/src packages/contract/src
COPY packages/contract/proto packages/contract/proto
COPY packages/reference-manager/tsconfig.build.json packages/reference-manager/
COPY packages/reference-manager/src packages/reference-manager/src
COPY packages/client/tsconfig.build.json packages/client/
COPY packages/client/src packages/client/src
RUN npm run build \
 && mkdir /artifact \
 && npm pack --ignore-scripts --pack-destination /artifact \
 && npm pack --ignore-scripts --pack-destination /artifact --workspace norsk-reference-manager \
 && cd /artifact && for f in *-[0-9]*.tgz; do mv "$f" "${f%-[0-9]*.tgz}.tgz"; done

# Install: each tarball into /app with its production dependencies. The gateway's optional
# peers (the reference Manager, OpenTelemetry) are left out, and it builds nothing: it is
# installed on the slim image, which has no compiler. node-gyp builds better-sqlite3 against
# the full image's own Node headers, so a source build needs no download; of that build only
# the addon is kept (28 MB of sources and objects otherwise), and the image fails to build if
# it does not load.
FROM ${NODE_SLIM_IMAGE} AS install-gateway
WORKDIR /app
COPY --from=build /artifact/norsk-manager-gateway.tgz /tmp/
RUN echo '{"name":"gateway-image","private":true}' > package.json \
 && npm install --omit=dev --no-audit --no-fund /tmp/norsk-manager-gateway.tgz \
 && rm /tmp/*.tgz

FROM ${NODE_IMAGE} AS install-reference-manager
WORKDIR /app
ENV npm_config_nodedir=/usr/local
COPY --from=build /artifact/norsk-reference-manager.tgz /tmp/
RUN echo '{"name":"reference-manager-image","private":true}' > package.json \
 && npm install --omit=dev --no-audit --no-fund /tmp/norsk-reference-manager.tgz \
 && rm /tmp/*.tgz \
 && cd node_modules/better-sqlite3 \
 && mv build/Release/better_sqlite3.node /tmp/ \
 && rm -rf build deps src \
 && mkdir -p build/Release \
 && mv /tmp/better_sqlite3.node build/Release/ \
 && cd /app \
 && node -e "new (require('better-sqlite3'))(':memory:').close()"

# The image that is run: the slim base (no compiler, no npm cache), files owned by root and
# read-only to the process, which runs as the image's unprivileged user "node" (uid 1000).
FROM ${NODE_SLIM_IMAGE} AS runtime
ENV NODE_ENV=production
WORKDIR /app

# The reference Manager: one replica, its SQLite database on the volume /data.
FROM runtime AS reference-manager
COPY --from=install-reference-manager /app /app
RUN mkdir /data && chown node:node /data
VOLUME ["/data"]
USER node
EXPOSE 6790
# grpc.health.v1.Health/Check for the server (""), answered SERVING (field 1 = 1: bytes 08 01).
HEALTHCHECK --interval=10s --timeout=5s --start-period=10s --retries=3 \
  CMD ["node", "-e", "const g=require('@grpc/grpc-js');const c=new g.Client('127.0.0.1:6790',g.credentials.createInsecure());c.makeUnaryRequest('/grpc.health.v1.Health/Check',(b)=>b,(b)=>b,Buffer.alloc(0),{deadline:Date.now()+4000},(e,r)=>process.exit(!e&&r.equals(Buffer.from([8,1]))?0:1))"]
ENTRYPOINT ["node", "/app/node_modules/norsk-reference-manager/dist/main.js"]
CMD ["--host", "0.0.0.0", "--port", "6790", "--data-dir", "/data"]

# The gateway (the default target): stateless, any number of replicas in front of one Manager.
# HOST=0.0.0.0 to be reached from outside the container; any Host name is then accepted unless
# ALLOWED_HOSTS lists the names clients use (docs/operations/exposure.md). Off loopback it starts
# only with authentication (docs/operations/authentication.md), so no default is set here: API
# keys from a secret (API_KEYS_FILE=/run/secrets/api-keys.json, the file deploy/make-api-key.sh
# writes, as deploy/compose.yaml mounts it), or AUTH_ISSUER with AUTH_AUDIENCE; AUTH=none only
# where the network itself decides who reaches the port.
FROM runtime AS gateway
COPY --from=install-gateway /app /app
USER node
# WORKERS=auto: one gateway process per CPU the container may use (its cgroup's cpu.max, else
# the CPUs it may run on), as one gateway process uses one core (docs/operations/deploying.md).
ENV HOST=0.0.0.0 \
    PORT=8080 \
    WORKERS=auto
EXPOSE 8080
# GET /healthz on loopback, as Host "localhost" (keep it in ALLOWED_HOSTS, as the Kubernetes
# probes need too); over HTTPS when TLS_CERT is set, its certificate not checked (nothing secret
# is sent, and the name it was issued for is not this loopback address).
HEALTHCHECK --interval=10s --timeout=5s --start-period=10s --retries=3 \
  CMD ["node", "-e", "const h=process.env.TLS_CERT?require('node:https'):require('node:http');h.get({host:'127.0.0.1',port:process.env.PORT||8080,path:'/healthz',headers:{host:'localhost'},rejectUnauthorized:false,timeout:4000},(r)=>process.exit(r.statusCode===200?0:1)).on('error',()=>process.exit(1)).on('timeout',()=>process.exit(1))"]
ENTRYPOINT ["node", "--max-semi-space-size=32", "/app/node_modules/norsk-manager-gateway/dist/src/main.js"]
CMD []
