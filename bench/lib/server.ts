import { spawn } from 'bun'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT, SOURCE_COMMAND, startServerProcess, type ServerProcess } from '../../harness/server-process'

export { freePort, ROOT, rssMbOf } from '../../harness/server-process'
const BINARY = join(ROOT, 'dist', 'service')
const SOURCES = ['src', 'plugins', 'db', 'package.json']

export interface ServerCommand {
  argv: string[]
  kind: 'binary' | 'source'
  /** Why this command was picked, printed with the results. */
  note: string
}

/** A running server process started by the harness; `stop()` resolves once it exited. */
export type RunningServer = Omit<ServerProcess, 'stop'> & { stop(): Promise<void> }

function newestSourceMtime(path: string): number {
  const stats = statSync(path)
  if (!stats.isDirectory()) return stats.mtimeMs
  let newest = 0
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestSourceMtime(join(path, entry)))
  return newest
}

/** True when `dist/service` exists and no source file is newer than it. */
export function binaryIsFresh(): boolean {
  if (!existsSync(BINARY)) return false
  const built = statSync(BINARY).mtimeMs
  return SOURCES.every((name) => !existsSync(join(ROOT, name)) || newestSourceMtime(join(ROOT, name)) <= built)
}

/**
 * The server under test: the compiled `dist/service` when present (and built after the last source change; a stale
 * binary would measure old code), else `bun run src/main.ts`. `prefer` forces one of them.
 */
export function serverCommand(prefer: 'auto' | 'binary' | 'source', builtBinary?: string): ServerCommand {
  const source: ServerCommand = {
    argv: SOURCE_COMMAND,
    kind: 'source',
    note: 'bun run src/main.ts',
  }
  if (prefer === 'source') return source
  if (existsSync(BINARY) && binaryIsFresh()) return { argv: [BINARY], kind: 'binary', note: 'dist/service' }
  if (prefer === 'binary') {
    if (builtBinary)
      return { argv: [builtBinary], kind: 'binary', note: 'a binary built from the current sources by the harness' }
    throw new Error('no up-to-date dist/service and the build failed: run `npm run build`')
  }
  return {
    ...source,
    note: existsSync(BINARY) ? 'bun run src/main.ts (dist/service is older than the sources)' : source.note,
  }
}

/**
 * Builds the binary from the current sources into `outfile`, with the flags of the package's `build` script (read
 * from package.json, so the two never disagree). Returns undefined when the build fails.
 */
export async function buildBinary(outfile: string): Promise<string | undefined> {
  const manifest = (await Bun.file(join(ROOT, 'package.json')).json()) as { scripts: Record<string, string> }
  const script = manifest.scripts.build ?? ''
  const args = script.split(/\s+/).filter(Boolean)
  if (args[0] !== 'bun' || args[1] !== 'build') return undefined
  const out = args.indexOf('--outfile')
  if (out < 0) return undefined
  args.splice(out, 2, '--outfile', outfile)
  const child = spawn([process.execPath, ...args.slice(1)], { cwd: ROOT, stdout: 'pipe', stderr: 'pipe' })
  return (await child.exited) === 0 && existsSync(outfile) ? outfile : undefined
}

/**
 * Starts `command` with `env` on 127.0.0.1 and a free port, and resolves once `/healthz` answers 200 (polled every
 * millisecond, so `readyMs` is the start-up time). Rejects (after killing it) if the process exits or is not ready
 * within `timeoutMs`. The process harness is the tests' own (`harness/server-process.ts`); `stop()` here sends
 * SIGTERM and kills what is still running 15 s later.
 */
export async function startServer(
  command: ServerCommand,
  env: Record<string, string>,
  timeoutMs = 120_000,
): Promise<RunningServer> {
  const server = await startServerProcess({
    command: command.argv,
    env: {
      // The scenarios drive thousands of requests a second through one key: the request rate limits would measure
      // themselves. A scenario that wants them sets its own values.
      RATE_LIMIT_API_KEY_PER_SECOND: '0',
      RATE_LIMIT_EMBED_SESSION_PER_SECOND: '0',
      ...env,
    },
    timeoutMs,
    ready: 'healthz',
    // Keep the tail only: a long run must not grow the harness's memory.
    outputLimit: 100_000,
  })
  return {
    ...server,
    async stop() {
      await server.stop('SIGTERM', 15_000)
    },
  }
}
