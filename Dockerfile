# shipmock's container image (README, "Run it as a container").
#   docker build -t shipmock .
#   docker run --rm -p 4010:4010 shipmock            # prints the banner with a generated admin key
# BASE is any Debian bookworm image with Node >= 20.19 at /usr/bin/node: the official slim image by
# default; scripts/container/image.sh passes a local stand-in where no registry can be reached.
# BUILD_BASE is the build stage's (the same, unless one with compilers is at hand).
ARG BASE=node:20-bookworm-slim
ARG BUILD_BASE=${BASE}

# ---- build: dependencies, the compiled CLI, validators and UI; then production dependencies only
FROM ${BUILD_BASE} AS build
# better-sqlite3 is compiled here, for this image's platform and Node.
RUN if ! command -v g++ >/dev/null || ! command -v make >/dev/null || ! command -v python3 >/dev/null; then \
      apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*; \
    fi
WORKDIR /app
COPY package.json package-lock.json ./
# No lifecycle scripts: the package's own `prepare` needs the sources (built below), and of the
# dependencies' scripts only better-sqlite3's matters (package.json allowScripts): it is built
# from source, so no prebuilt binary is downloaded from elsewhere.
ENV npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false
RUN npm ci --ignore-scripts \
 && npm_config_build_from_source=true npm rebuild better-sqlite3
COPY . .
# warm-cache.mjs once more: the validators now load from dist/validator-cache and leave V8's code
# cache beside them (<entry>.v8, src/util/disk-cache.ts); /app is read-only to the runtime user,
# so without it every container start parses ~2 MB of validator code again.
RUN npm run build --silent \
 && node scripts/warm-cache.mjs \
 && npm prune --omit=dev --ignore-scripts \
 && sh scripts/container/prune-image-files.sh /app

# ---- runtime: Node, production dependencies and dist/; nothing that builds
FROM ${BASE}
ARG BASE
LABEL org.opencontainers.image.title=shipmock \
      org.opencontainers.image.description="Offline, stateful mock of the Shipping Platform API" \
      org.opencontainers.image.licenses=MIT \
      org.opencontainers.image.base.name=${BASE}
# A user of its own (no login, no home of interest); it owns only /data.
RUN if command -v useradd >/dev/null; then \
      groupadd --gid 10001 shipmock && useradd --uid 10001 --gid 10001 --no-create-home --home-dir /data --shell /usr/sbin/nologin shipmock; \
    else \
      echo 'shipmock:x:10001:10001:shipmock:/data:/usr/sbin/nologin' >>/etc/passwd && echo 'shipmock:x:10001:' >>/etc/group; \
    fi \
 && mkdir -p /data && chown 10001:10001 /data && chmod 0700 /data
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/bin ./bin
COPY --from=build /app/dist ./dist
COPY --from=build /app/contract ./contract
COPY --from=build /app/fixtures ./fixtures
COPY --from=build /app/scenarios ./scenarios
COPY --from=build /app/scripts/container/entrypoint.sh /app/scripts/container/healthcheck.mjs ./container/
# Every flag has a variable (README, configuration by environment); these are the image's defaults:
# reachable through a published port, state kept in the volume, and a control plane that needs a
# key (generated and printed once unless SHIPMOCK_ADMIN_KEY gives one).
ENV NODE_ENV=production \
    SHIPMOCK_HOST=0.0.0.0 \
    SHIPMOCK_PORT=4010 \
    SHIPMOCK_DATA=/data/shipmock.db \
    SHIPMOCK_ADMIN_KEY=auto
USER 10001:10001
VOLUME /data
EXPOSE 4010
# Slim images have no curl: Node asks. The port comes from SHIPMOCK_PORT.
HEALTHCHECK --interval=5s --timeout=3s --start-period=10s --retries=3 CMD ["node", "/app/container/healthcheck.mjs"]
ENTRYPOINT ["/app/container/entrypoint.sh"]
CMD ["serve"]
