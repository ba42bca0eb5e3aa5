# Build the single binary with Bun, then run it in a slim image as a non-root user, data in a volume.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build

FROM debian:bookworm-slim
RUN useradd --system --uid 10001 --home-dir /srv --shell /usr/sbin/nologin service \
 && mkdir -p /srv/data && chown service /srv/data
COPY --from=build /app/dist/service /usr/local/bin/service
USER service
WORKDIR /srv
# The server's own runtime settings (src/runtime-tuning.ts), set here so the process need not re-execute itself.
ENV HOST=0.0.0.0 PORT=4000 DB_PATH=/srv/data/service.db BUN_JSC_heapGrowthMaxIncrease=0.75 BUN_JSC_smallHeapGrowthFactor=1.75 MIMALLOC_PURGE_DELAY=1000
VOLUME ["/srv/data"]
EXPOSE 4000
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s CMD ["/usr/local/bin/service", "healthcheck"]
ENTRYPOINT ["/usr/local/bin/service"]
