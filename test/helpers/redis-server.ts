import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort } from '../../harness/server-process'
import { programAvailable } from './programs'

/**
 * A throwaway Redis for tests: `redis-server` without persistence, in a temp folder, on a free port of 127.0.0.1.
 * One per `bun test` run, started on first use; `stopRedisServer()` (called when the run ends, and on exit) stops
 * it and deletes its folder, also after a failed test.
 */
export const REDIS_BIN = ['/usr/bin/redis-server', '/usr/local/bin/redis-server'].find(existsSync)
/** Missing, the tests that need Redis skip here and fail in CI (`CI=true`). */
export const redisAvailable = programAvailable('Redis', REDIS_BIN !== undefined, 'apt-get install -y redis-server')

/** Whether the chat tests run on the Redis registry (`TEST_REGISTRY=redis`) instead of the in-memory one. */
export const testRegistry = process.env.TEST_REGISTRY === 'redis' ? 'redis' : 'memory'

/** A Redis of its own: `stop()` ends it and deletes its folder. */
export interface RedisServer {
  url: string
  /** Stops the process (SIGSTOP): it keeps accepting connections but answers nothing until `resume()`. */
  pause(): void
  /** Lets a paused Redis run again (SIGCONT). */
  resume(): void
  stop(): Promise<void>
}

/** Every Redis still running, stopped when the process exits. */
const running = new Set<() => void>()

/** Starts a `redis-server` in a new temp folder, resolving once it answers PING. */
async function launch(): Promise<{ url: string; child: ChildProcess; kill(): void }> {
  if (!REDIS_BIN) throw new Error('redis-server is not installed (apt-get install -y redis-server)')
  const folder = mkdtempSync(join(tmpdir(), 'test-redis-'))
  const port = await freePort()
  const child = spawn(
    REDIS_BIN,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', folder],
    { stdio: 'ignore' },
  )
  const kill = () => {
    running.delete(kill)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
    rmSync(folder, { recursive: true, force: true })
  }
  running.add(kill)
  const url = `redis://127.0.0.1:${port}`
  const deadline = Date.now() + 30_000
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`redis-server exited with code ${child.exitCode}`)
      const client = new Bun.RedisClient(url, { autoReconnect: false, connectionTimeout: 1000 })
      try {
        if ((await client.send('PING', [])) === 'PONG') return { url, child, kill }
      } catch {
        // Not listening yet.
      } finally {
        client.close()
      }
      if (Date.now() > deadline) throw new Error('redis-server did not start within 30 s')
      await Bun.sleep(50)
    }
  } catch (error) {
    kill()
    throw error
  }
}

let shared: Promise<string> | undefined
let killShared: (() => void) | undefined

/** The URL of the run's Redis, started on first use. */
export const redisServer = (): Promise<string> =>
  (shared ??= launch().then((server) => {
    killShared = server.kill
    return server.url
  }))

/** Stops the run's Redis and deletes its folder. */
export function stopRedisServer(): void {
  killShared?.()
  killShared = undefined
  shared = undefined
}

/**
 * A Redis no other test writes to (a test that kills the nodes using it, say), started for the caller alone;
 * `stop()` ends it, and it is stopped at exit otherwise.
 */
export async function startRedisServer(): Promise<RedisServer> {
  const { url, child, kill } = await launch()
  return {
    url,
    pause: () => child.kill('SIGSTOP'),
    resume: () => child.kill('SIGCONT'),
    async stop() {
      const exited =
        child.exitCode === null && child.signalCode === null
          ? new Promise((resolve) => child.once('exit', resolve))
          : Promise.resolve()
      kill()
      await exited
    },
  }
}

process.once('exit', () => {
  for (const kill of running) kill()
})
