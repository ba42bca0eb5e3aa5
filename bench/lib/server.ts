import { spawn, type Subprocess } from 'bun'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { wallMs } from './stats'

export const ROOT = join(import.meta.dir, '..', '..')
const BINARY = join(ROOT, 'dist', 'service')
const SOURCES = ['src', 'plugins', 'db', 'package.json']

export interface ServerCommand {
  argv: string[]
  kind: 'binary' | 'source'
  /** Why this command was picked, printed with the results. */
  note: string
}

/** A running server process started by the harness. */
export interface RunningServer {
  url: string
  port: number
  pid: number
  process: Subprocess<'ignore', 'pipe', 'pipe'>
  /** Milliseconds from spawn to the first `/healthz` 200. */
  readyMs: number
  /** Resident set size of the process now, in MB (from /proc). */
  rssMb(): number
  /** What the process printed so far (warnings and errors only, at LOG_LEVEL=warn). */
  output(): string
  stop(): Promise<void>
}

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
    argv: [process.execPath, 'run', join(ROOT, 'src', 'main.ts')],
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

/** A port that was free a moment ago on 127.0.0.1 (the server is started on it right away). */
export function freePort(): number {
  const probe = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } })
  const { port } = probe
  probe.stop(true)
  return port
}

export function rssMbOf(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8')
    const match = /VmRSS:\s+(\d+)\s+kB/.exec(status)
    return match ? Number(match[1]) / 1024 : Number.NaN
  } catch {
    return Number.NaN
  }
}

/**
 * Starts `command` with `env` on 127.0.0.1 and a free port, and resolves once `/healthz` answers 200 (polled every
 * millisecond, so `readyMs` is the start-up time). Rejects (after killing it) if the process exits or is not ready
 * within `timeoutMs`.
 */
export async function startServer(
  command: ServerCommand,
  env: Record<string, string>,
  timeoutMs = 120_000,
): Promise<RunningServer> {
  const port = freePort()
  const startedAt = wallMs()
  const child = spawn(command.argv, {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      HOST: '127.0.0.1',
      PORT: String(port),
      // The scenarios drive thousands of requests a second through one key: the request rate limits would measure
      // themselves. A scenario that wants them sets its own values.
      RATE_LIMIT_API_KEY_PER_SECOND: '0',
      RATE_LIMIT_EMBED_SESSION_PER_SECOND: '0',
      ...env,
    },
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
  })
  let text = ''
  const collect = async (stream: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder()
    for await (const chunk of stream) {
      text += decoder.decode(chunk, { stream: true })
      // Keep the tail only: a long run must not grow the harness's memory.
      if (text.length > 200_000) text = text.slice(-100_000)
    }
  }
  void collect(child.stdout)
  void collect(child.stderr)
  const url = `http://127.0.0.1:${port}`
  let readyMs = Number.NaN
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode} before it was ready:\n${text}`)
    if (wallMs() - startedAt > timeoutMs) {
      child.kill('SIGKILL')
      await child.exited
      throw new Error(`server not ready within ${timeoutMs} ms:\n${text}`)
    }
    try {
      const response = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(1000) })
      if (response.ok) {
        readyMs = wallMs() - startedAt
        break
      }
    } catch {
      // Not listening yet.
    }
    await Bun.sleep(1)
  }
  return {
    url,
    port,
    pid: child.pid,
    process: child,
    readyMs,
    rssMb: () => rssMbOf(child.pid),
    output: () => text,
    async stop() {
      if (child.exitCode !== null) return
      child.kill('SIGTERM')
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000)
      await child.exited
      clearTimeout(timer)
    },
  }
}
