import { spawn, type Subprocess } from 'bun'
import { mkdirSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { AGENTS, BENCH_ACCOUNT, BENCH_KEY, benchBootstrap } from './bootstrap'
import type { BenchConfig } from './config'
import { freePort, startServer, type RunningServer, type ServerCommand } from './server'
import { wallMs } from './stats'
import { withRaisedFileLimit } from './workers'

/** Everything a scenario needs: the server under test, the baseline, URLs, credentials and shared figures. */
export interface BenchContext {
  config: BenchConfig
  dir: string
  command: ServerCommand
  server: RunningServer
  baselineUrl: string
  /** The baseline server's process, for its CPU time. */
  baselinePid?: number
  headers: Record<string, string>
  /** Figures later scenarios compare with (the protocol turn's turns/s at 32, say). */
  figures: Record<string, number>
  log(message: string): void
  chatUrl(agentId: number, path?: string): string
  /** A fresh `messageId` (unique per harness run). */
  messageId(): string
  /**
   * Stops the server and starts it again on the same database (a scenario that measures memory from idle);
   * `runLimits: 'default'` starts it with the service's own run limits instead of the lifted ones.
   */
  restartServer(options?: { runLimits?: 'lifted' | 'default' }): Promise<void>
  /** Every process the run started (servers, the baseline), so a test can check none is left. */
  pids: number[]
  /**
   * Stops of what a scenario started besides the server (more nodes, Postgres, Redis): the scenario runs them when
   * it ends, and the harness runs those still here when it stops early (Ctrl-C, a failure).
   */
  cleanups: Array<() => Promise<void>>
}

/**
 * The run limits lifted for the throughput and memory scenarios: 10,000 held runs of 100 users on one key, and
 * closed loops that reuse a few users, measure the server, not its admission control (the overload scenario
 * measures that, with the defaults).
 */
export const LIFTED_RUN_LIMITS = {
  CHAT_MAX_RUNS_PER_USER: '1000000',
  CHAT_MAX_RUNS_PER_KEY: '1000000',
  CHAT_MAX_ACTIVE_RUNS: '1000000',
  CHAT_RUN_QUEUE_SIZE: '1000000',
}

export function serverEnv(dir: string, runLimits: 'lifted' | 'default' = 'lifted'): Record<string, string> {
  return {
    DB_PATH: join(dir, 'service.db'),
    BOOTSTRAP_FILE: join(dir, 'bootstrap.json'),
    DEMO_DATA_PATH: join(dir, 'demo-data.db'),
    LOG_LEVEL: 'warn',
    ANALYST_DELAY_MS: '0',
    ...(runLimits === 'lifted' ? LIFTED_RUN_LIMITS : {}),
  }
}

export function makeTempDir(): string {
  const dir = join(tmpdir(), `bench-${process.pid}-${Date.now()}`)
  mkdirSync(join(dir, 'baseline'), { recursive: true })
  return dir
}

export function writeBootstrap(dir: string, config: BenchConfig): void {
  writeFileSync(join(dir, 'bootstrap.json'), JSON.stringify(benchBootstrap(config), null, 2))
}

/** Starts the server under test with the raised open-files limit. */
export function startServerUnderTest(
  command: ServerCommand,
  dir: string,
  runLimits: 'lifted' | 'default' = 'lifted',
): Promise<RunningServer> {
  return startServer({ ...command, argv: withRaisedFileLimit(command.argv) }, serverEnv(dir, runLimits))
}

export function createContext(options: {
  config: BenchConfig
  dir: string
  command: ServerCommand
  server: RunningServer
  baselineUrl: string
  log(message: string): void
}): BenchContext {
  let sequence = 0
  const base = String(Date.now())
  const context: BenchContext = {
    ...options,
    headers: { authorization: `Api-Key ${BENCH_KEY}`, 'content-type': 'application/json' },
    figures: {},
    pids: [options.server.pid],
    cleanups: [],
    chatUrl: (agentId, path = 'stream-chat-state') =>
      `${context.server.url}/api/v1/public/${BENCH_ACCOUNT}/agents/${agentId}/chat/${path}`,
    messageId: () => `${base}${String(sequence++).padStart(9, '0')}-message`,
    async restartServer(options = {}) {
      await context.server.stop()
      context.server = await startServerUnderTest(context.command, context.dir, options.runLimits)
      context.pids.push(context.server.pid)
    },
  }
  return context
}

/** A running baseline server process. */
export interface Baseline {
  url: string
  pid: number
  stop(): Promise<void>
}

/** Starts `baseline-server.ts` over the shapes recorded in `<dir>/baseline`, its durable turns in a file of `dir`. */
export async function startBaseline(dir: string): Promise<Baseline> {
  const port = freePort()
  const child: Subprocess = spawn([process.execPath, 'run', join(import.meta.dir, '..', 'baseline-server.ts')], {
    env: {
      PATH: process.env.PATH ?? '',
      PORT: String(port),
      BASELINE_DIR: join(dir, 'baseline'),
      DURABLE_DB: join(dir, 'baseline-durable.db'),
    },
    stdout: 'inherit',
    stderr: 'inherit',
  })
  const url = `http://127.0.0.1:${port}`
  const startedAt = wallMs()
  for (;;) {
    if (child.exitCode !== null) throw new Error('baseline server exited')
    if (wallMs() - startedAt > 30_000) throw new Error('baseline server not ready in 30 s')
    try {
      if ((await fetch(`${url}/healthz`)).ok) break
    } catch {
      await Bun.sleep(5)
    }
  }
  return {
    url,
    pid: child.pid,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM')
      await child.exited
    },
  }
}

/** Records one real turn's body as a baseline shape: the baseline answers with exactly these lines. */
export async function recordShape(
  context: Pick<BenchContext, 'headers' | 'dir'>,
  name: string,
  url: string,
  body: string,
): Promise<{ lines: number; bytes: number }> {
  const response = await fetch(url, { method: 'POST', headers: context.headers, body })
  const text = await response.text()
  if (!response.ok || !text.includes('{"id":"__state__"') || text.includes('{"error":'))
    throw new Error(`recording the ${name} turn failed: HTTP ${response.status} ${text.slice(0, 300)}`)
  writeFileSync(join(context.dir, 'baseline', `${name}.ndjson`), text)
  return { lines: text.split('\n').filter(Boolean).length, bytes: Buffer.byteLength(text) }
}

export { AGENTS }
