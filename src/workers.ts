import type { Subprocess } from 'bun'
import type { Config } from '../lib/config'
import type { Logger } from '../lib/logger'
import { frontPageUrl } from './front-page-url'
import { StartupError } from './startup-error'
import { createMetricsRelay, type WorkerMetricsMessage } from './worker-metrics'

/** Set in a worker's environment (its number, from 1): the process serves instead of supervising. */
export const WORKER_VARIABLE = 'SERVICE_WORKER'

/** What a worker tells its supervisor once it listens. */
export interface WorkerListening {
  type: 'listening'
  port: number
}

/** A worker that dies is started again after this long, doubled while it keeps dying young, up to the maximum. */
const RESTART_DELAY_MS = 1000
const MAX_RESTART_DELAY_MS = 30_000
/** A worker that ran this long before dying was healthy: its next restart waits the shortest delay again. */
const HEALTHY_AFTER_MS = 10_000

/** The number of this process as a worker, or undefined when it is not one. */
export function workerNumber(environment: Record<string, string | undefined>): number | undefined {
  const value = environment[WORKER_VARIABLE]
  return value === undefined ? undefined : Number(value)
}

/** The command that starts this program's server again: the binary, or bun with its flags and the entry script. */
function serveCommand(): string[] {
  // A compiled binary's entry script is embedded (`/$bunfs/...`): the executable is the whole program.
  if (Bun.main.startsWith('/$bunfs/')) return [process.execPath, 'serve']
  return [process.execPath, ...process.execArgv, Bun.main, 'serve']
}

/** Fails the start, as a single process would, when something else listens on the port. */
function ensurePortIsFree(host: string, port: number): void {
  try {
    // Without SO_REUSEPORT this bind fails whatever holds the port, a process sharing it with its own workers too.
    Bun.serve({ hostname: host, port, reusePort: false, fetch: () => new Response(null) }).stop(true)
  } catch (error) {
    if ((error as { code?: string }).code === 'EADDRINUSE')
      throw new StartupError(`Port ${port} on ${host} is already in use; set PORT to a free port`)
    throw error
  }
}

interface Worker {
  number: number
  process: Subprocess
  startedAt: number
}

/**
 * `WORKERS=n`: this process supervises n server processes that listen on one port (`SO_REUSEPORT`: the kernel
 * spreads connections over them) and share their runs through Redis, so one machine uses all its cores. The
 * supervisor serves nothing itself: it starts the first worker (which migrates and bootstraps, and picks the port
 * when PORT is 0), then the others on that port; restarts a worker that dies; and passes SIGTERM and SIGINT on,
 * exiting once every worker has stopped. Workers stop by themselves if the supervisor dies.
 */
export async function superviseWorkers(
  config: Config,
  environment: Record<string, string | undefined>,
  logger: Logger,
): Promise<void> {
  if (config.port !== 0) ensurePortIsFree(config.host, config.port)
  const workers = new Map<number, Worker>()
  const restartDelays = new Map<number, number>()
  const timers = new Set<ReturnType<typeof setTimeout>>()
  /** Every worker process alive, listening or still starting. */
  const children = new Set<Subprocess>()
  let port = config.port
  let stopping = false
  // A scrape of the shared port reaches one worker; it asks here for the series of all of them.
  const metricsRelay = createMetricsRelay(() => [...workers.values()].map((worker) => worker.process))

  const start = (number: number): Promise<Worker> =>
    new Promise((resolve, reject) => {
      let listening = false
      const env: Record<string, string> = {}
      for (const [name, value] of Object.entries(environment)) if (value !== undefined) env[name] = value
      const child = Bun.spawn(serveCommand(), {
        env: { ...env, PORT: String(port), [WORKER_VARIABLE]: String(number) },
        stdio: ['ignore', 'inherit', 'inherit'],
        serialization: 'json',
        ipc(message: WorkerListening | WorkerMetricsMessage) {
          if (message?.type !== 'listening') return metricsRelay.receive(child, message)
          if (listening) return
          listening = true
          port = message.port
          const worker = { number, process: child, startedAt: Date.now() }
          workers.set(number, worker)
          resolve(worker)
        },
      })
      children.add(child)
      void child.exited.then((code) => {
        children.delete(child)
        if (!listening) reject(new StartupError(`Worker ${number} exited with code ${code} before it listened`))
        else {
          const worker = workers.get(number)
          if (worker?.process === child) died(worker, code, child.signalCode)
        }
      })
    })

  const died = (worker: Worker, code: number | null, signal: Subprocess['signalCode']) => {
    workers.delete(worker.number)
    if (stopping) return
    logger.error('worker died; starting it again', { worker: worker.number, code, signal })
    restart(worker.number, worker.startedAt)
  }
  const restart = (number: number, startedAt: number) => {
    const healthy = Date.now() - startedAt >= HEALTHY_AFTER_MS
    const delay = healthy
      ? RESTART_DELAY_MS
      : Math.min((restartDelays.get(number) ?? RESTART_DELAY_MS / 2) * 2, MAX_RESTART_DELAY_MS)
    restartDelays.set(number, delay)
    const timer = setTimeout(() => {
      timers.delete(timer)
      if (stopping) return
      const attemptAt = Date.now()
      start(number).then(
        (started) => logger.info('worker started again', { worker: number, pid: started.process.pid }),
        (error: Error) => {
          // It died before listening (the database unreachable, say): one more young death, a longer wait.
          logger.error('worker could not start again', { worker: number, error: error.message })
          restart(number, attemptAt)
        },
      )
    }, delay)
    timers.add(timer)
  }

  const stopAll = async (signal: NodeJS.Signals) => {
    stopping = true
    for (const timer of timers) clearTimeout(timer)
    const running = [...children]
    for (const child of running) if (child.exitCode === null) child.kill(signal)
    // Each worker has its own grace period; past it (and a margin to close its storage), it is killed.
    const forced = setTimeout(() => {
      for (const child of running) if (child.exitCode === null) child.kill('SIGKILL')
    }, config.shutdownGraceMs + 5000)
    await Promise.all(running.map((child) => child.exited))
    clearTimeout(forced)
  }

  // From the start: a signal while the workers start stops the ones already running too.
  let exiting = false
  const stop = async (signal: NodeJS.Signals) => {
    if (exiting) return
    exiting = true
    logger.info('shutting down', { signal, workers: children.size })
    await stopAll('SIGTERM')
    logger.info('stopped')
    process.exit(0)
  }
  process.on('SIGTERM', () => void stop('SIGTERM'))
  process.on('SIGINT', () => void stop('SIGINT'))

  try {
    // The first worker alone: it migrates the database and applies the bootstrap, then the others find them done.
    await start(1)
    await Promise.all(Array.from({ length: config.workers - 1 }, (_, index) => start(index + 2)))
  } catch (error) {
    if (exiting) return
    await stopAll('SIGKILL')
    throw error
  }
  logger.info('workers listening', {
    url: frontPageUrl(config.host, port),
    workers: config.workers,
    pids: [...workers.values()].map((worker) => worker.process.pid),
  })
}
