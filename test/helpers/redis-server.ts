import type { ChildProcess } from 'node:child_process'
import { REDIS_BIN, startRedisProcess } from '../../harness/backing-servers'
import { programAvailable } from './programs'

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

/** Starts a `redis-server` in a new temp folder, resolving once it answers PING; stopped at exit if still running. */
async function launch(): Promise<{ url: string; child: ChildProcess; kill(): void }> {
  const redis = await startRedisProcess()
  const kill = () => {
    running.delete(kill)
    redis.kill()
  }
  running.add(kill)
  return { url: redis.url, child: redis.child, kill }
}

let shared: Promise<string> | undefined
let killShared: (() => void) | undefined

/**
 * The URL of the run's throwaway Redis: `redis-server` without persistence, in a temp folder, on a free port of
 * 127.0.0.1. One per `bun test` run, started on first use; `stopRedisServer()` (called when the run ends, and on
 * exit) stops it and deletes its folder, also after a failed test.
 */
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
