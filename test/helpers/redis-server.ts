import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort } from './database-servers'

/**
 * A throwaway Redis for tests: `redis-server` without persistence, in a temp folder, on a free port of 127.0.0.1.
 * One per `bun test` run, started on first use; `stopRedisServer()` (called when the run ends, and on exit) stops
 * it and deletes its folder, also after a failed test.
 */
export const REDIS_BIN = ['/usr/bin/redis-server', '/usr/local/bin/redis-server'].find(existsSync)
export const redisAvailable = REDIS_BIN !== undefined

/** Whether the chat tests run on the Redis registry (`TEST_REGISTRY=redis`) instead of the in-memory one. */
export const testRegistry = process.env.TEST_REGISTRY === 'redis' ? 'redis' : 'memory'

let child: ChildProcess | undefined
let folder: string | undefined
let started: Promise<string> | undefined

async function start(): Promise<string> {
  if (!REDIS_BIN) throw new Error('redis-server is not installed (apt-get install -y redis-server)')
  folder = mkdtempSync(join(tmpdir(), 'test-redis-'))
  const port = await freePort()
  const server = spawn(
    REDIS_BIN,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', folder],
    { stdio: 'ignore' },
  )
  child = server
  const url = `redis://127.0.0.1:${port}`
  const deadline = Date.now() + 30_000
  for (;;) {
    if (server.exitCode !== null) throw new Error(`redis-server exited with code ${server.exitCode}`)
    const client = new Bun.RedisClient(url, { autoReconnect: false, connectionTimeout: 1000 })
    try {
      if ((await client.send('PING', [])) === 'PONG') return url
    } catch {
      // Not listening yet.
    } finally {
      client.close()
    }
    if (Date.now() > deadline) throw new Error('redis-server did not start within 30 s')
    await Bun.sleep(50)
  }
}

/** The URL of the run's Redis, started on first use. */
export const redisServer = (): Promise<string> => (started ??= start())

/** Stops the run's Redis and deletes its folder. */
export function stopRedisServer(): void {
  child?.kill('SIGKILL')
  child = undefined
  if (folder) rmSync(folder, { recursive: true, force: true })
  folder = undefined
}

process.once('exit', stopRedisServer)
