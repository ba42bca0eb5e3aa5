import { createApp } from './app'
import { loadConfig } from '../lib/config'
import { createDeps } from './deps'
import { createLogger, resolveLogFormat } from '../lib/logger'
import { StartupError, withNamedFile } from './startup-error'
import { prepareStorage } from './prepare-storage'
import { startWalCheckpointer } from './wal-checkpointer'
import { prepareSemanticLayer } from '../plugins/semantic/startup'
import { demoDataPath } from '../plugins/semantic/demo/demo-data-file'
import { frontPageUrl } from './front-page-url'
import { demoKeyNotice } from './demo-key-notice'
import { superviseWorkers, workerNumber, type WorkerListening } from './workers'
import { shareWorkerMetrics } from './worker-metrics'

/**
 * The server (`service serve`): configuration, storage, bootstrap, the app on its port, and a graceful SIGTERM.
 * Resolves once it listens; the process then runs until a signal stops it.
 */
export async function serve(environment: Record<string, string | undefined> = process.env): Promise<void> {
  const startedAt = performance.now()
  const config = loadConfig(environment)
  const worker = workerNumber(environment)
  // A worker's every line says which worker wrote it: they share one output and one port.
  const logFormat = resolveLogFormat(config.logFormat)
  const logger = createLogger(config.logLevel, worker === undefined ? {} : { worker }, undefined, logFormat)
  if (config.workers > 1 && worker === undefined) return superviseWorkers(config, environment, logger)
  // Before anything is stored: a start that cannot listen must not seed the demo and print its key (shown once)
  // only to fail. Workers share the port on purpose; their supervisor checked it.
  if (worker === undefined && config.port !== 0) assertCanListen(config)
  const { storage, demoApiKey, dataSources } = await prepareStorage(config, logger)
  if (demoApiKey) {
    // Printed before listening so the key is not lost if the port turns out to be taken.
    const port = config.port === 0 ? '<port>' : config.port
    process.stdout.write(demoKeyNotice(demoApiKey, port, logFormat))
  }
  const deps = createDeps(config, storage, { logger, dataSources })
  // Nodes already running keep keys, accounts, deployments and agents in memory: the bootstrap this start applied
  // may have revoked or changed them. Redis not answering yet is no reason not to start: the bus sends it later.
  if (deps.bus.shared && config.bootstrapFile)
    deps.bus
      .publish({ type: 'bootstrap-applied' })
      .catch((error: unknown) => logger.warn('the other nodes could not be told of the bootstrap yet', { error }))
  // Write-ahead log checkpoints run on a worker thread, never inside a request (registered first: stops last).
  const checkpointer = startWalCheckpointer(storage, logger)
  deps.lifecycle.onShutdown(() => checkpointer.stop())
  // Before listening: every model must load, and the demo data must exist before the first question.
  await withNamedFile('DEMO_DATA_PATH', demoDataPath(config), () => prepareSemanticLayer(deps))
  // Workers share the port: whichever is scraped answers `/metrics` for all of them.
  if (worker !== undefined && process.send) shareWorkerMetrics(deps.metrics, (message) => process.send?.(message))
  const app = createApp(deps)

  try {
    app.listen({
      port: config.port,
      hostname: config.host,
      // Workers share the port on purpose; a lone server must never share it with another process by accident.
      reusePort: worker !== undefined,
      maxRequestBodySize: BUN_BODY_LIMIT,
      idleTimeout: 255,
    })
  } catch (error) {
    await storage.close()
    throw listenError(error, config)
  }
  const server = app.server!
  logger.info('listening', {
    // The front page: status, links to the API reference and docs, and an embed preview with an API key.
    url: frontPageUrl(config.host, server.port!),
    db: storage.path,
    agent: config.llm ? `llm:${config.llm.model}` : 'offline analyst',
    startupMs: Math.round(performance.now() - startedAt),
    // Since the process started, module loading included.
    processMs: Math.round(performance.now()),
  })
  let stopping = false
  const stop = async (signal: string) => {
    if (stopping) return
    stopping = true
    logger.info('shutting down', { signal })
    // Readiness fails at once and new chat turns are refused; active runs end as interrupted and chat sockets close
    // once their turn is sent. The server stops accepting and lets what is in flight finish (a query, a download),
    // for at most the grace period; only then do the feature areas close what requests use, then the database.
    const forced = setTimeout(() => server.stop(true), config.shutdownGraceMs)
    // Keeps the process alive until the last step: once the server is stopped, what the steps wait for (a worker
    // thread's reply) holds no handle of its own, and the process would end with code 0 half way through.
    const alive = setInterval(() => {}, 60_000)
    await deps.lifecycle.drain()
    await server.stop(false)
    clearTimeout(forced)
    await deps.lifecycle.shutdown()
    await storage.close()
    logger.info('stopped')
    clearInterval(alive)
    process.exit(0)
  }
  process.on('SIGTERM', () => void stop('SIGTERM'))
  process.on('SIGINT', () => void stop('SIGINT'))
  if (worker !== undefined) {
    process.send?.({ type: 'listening', port: server.port! } satisfies WorkerListening)
    // The supervisor is gone (killed, say): nobody would stop or restart this worker any more.
    process.on('disconnect', () => void stop('supervisor gone'))
  }
}

/** Throws the `StartupError` of `listenError` unless `HOST` and `PORT` can be listened on right now. */
function assertCanListen(config: { host: string; port: number }): void {
  try {
    Bun.serve({ hostname: config.host, port: config.port, reusePort: false, fetch: () => new Response() }).stop(true)
  } catch (error) {
    throw listenError(error, config)
  }
}

/** Why the server cannot listen, naming the setting to change: a taken port, or a host this machine does not have. */
function listenError(error: unknown, config: { host: string; port: number }): unknown {
  const code = (error as { code?: string }).code
  if (code === 'EADDRINUSE')
    return new StartupError(`Port ${config.port} on ${config.host} is already in use; set PORT to a free port`)
  if (typeof code === 'string' && /^E[A-Z]+$/.test(code))
    return new StartupError(
      `Cannot listen on ${config.host}:${config.port} (${code}); set HOST to an address of this machine, such as 0.0.0.0 or 127.0.0.1`,
    )
  return error
}

/**
 * Bun's own body limit answers 413 with an empty body, before the app sees the request. The app enforces
 * `MAX_BODY_BYTES` itself with the JSON error body (`plugins/core/body-limit.ts`): by the declared length before
 * reading, and by counting a chunked body as it is read. So Bun's limit is set out of the way.
 */
const BUN_BODY_LIMIT = Number.MAX_SAFE_INTEGER

/** `service healthcheck`: exit 0 when the local server answers `path` with 200 (for images without curl). */
export async function healthcheck(
  environment: Record<string, string | undefined> = process.env,
  path = '/healthz',
): Promise<number> {
  const config = loadConfig(environment)
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host
  try {
    const response = await fetch(`http://${host.includes(':') ? `[${host}]` : host}:${config.port}${path}`, {
      signal: AbortSignal.timeout(2000),
    })
    return response.ok ? 0 : 1
  } catch {
    return 1
  }
}
