# One image for every role of the service (docs/operations.md): the command names the role.
#   docker run IMAGE edge | worker | migrate | connector sandbox | antifraud sandbox-antifraud
# Without a role the process runs `all`: embedded mode, everything in one process (DATA_DIR must then be a volume).

# ---- build: every dependency (TypeScript, type packages), then tsc into dist/ ----
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --loglevel=error
COPY tsconfig.json ./
# Only the code the service runs; tsconfig also lists test/ and bench/, which the image leaves out (.dockerignore).
COPY domain ./domain
COPY application ./application
COPY infrastructure ./infrastructure
COPY edge ./edge
COPY webhook-verifier ./webhook-verifier
RUN node_modules/.bin/tsc -p tsconfig.json
# The checkout page's browser code, bundled into dist/web/checkout (served as /checkout.js and /checkout.css).
COPY web ./web
COPY scripts/build-checkout-page.ts ./scripts/
RUN node_modules/.bin/tsx scripts/build-checkout-page.ts

# ---- runtime: production dependencies and the compiled code only ----
FROM node:20-bookworm-slim AS runtime
# NODE_OPTIONS: every process of the service runs with a 64 MB young generation (README, "Modes and roles").
# HOST: a container is reached through its network interface, never through its loopback.
ENV NODE_ENV=production \
    NODE_OPTIONS=--max-semi-space-size=64 \
    HOST=0.0.0.0
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund --loglevel=error && npm cache clean --force
# dist/ holds the compiled code and dist/package.json (the service reads its version from it). Nothing else is read
# from disk at run time but node_modules: swagger-ui-dist's assets (/docs), PGlite's files, grpc-health-check's proto.
COPY --from=build /app/dist ./dist
# DATA_DIR (./.data): the embedded database and, without CREDENTIALS_KEY in DEPLOYMENT=local, the generated key.
# Owned by the unprivileged user, so a volume mounted here starts with that owner.
RUN mkdir -p /app/.data && chown node:node /app/.data && chmod 0700 /app/.data
USER node
EXPOSE 8080
ENTRYPOINT ["node", "dist/infrastructure/main/main.js"]
CMD ["all"]
