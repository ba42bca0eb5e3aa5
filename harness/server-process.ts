import { spawn, type Subprocess } from 'bun'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'

/**
 * The one way the slow tests (`test/e2e/`) and the benchmarks (`bench/`) start the service as a real process: spawn
 * it on 127.0.0.1, wait until it serves, keep what it prints, stop it. Nothing here is part of the service.
 */

/** The project folder. */
export const ROOT = join(import.meta.dir, '..')

/** `bun run src/main.ts` with the Bun that runs this process. */
export const SOURCE_COMMAND = [process.execPath, 'run', join(ROOT, 'src', 'main.ts')]

export interface ServerProcess {
  url: string
  port: number
  pid: number
  process: Subprocess<'ignore', 'pipe', 'pipe'>
  /** Milliseconds from spawn until it served (its start line, or the first `/healthz` 200). */
  readyMs: number
  /** Everything the server printed so far (its tail only, when `outputLimit` is set). */
  output(): string
  /** Resident set size of the process now, in MB (from /proc; NaN where there is none). */
  rssMb(): number
  /**
   * Sends `signal` (SIGTERM by default) unless it already exited, and resolves with its exit code. With `killAfterMs`
   * a process still running that long after the signal is killed.
   */
  stop(signal?: NodeJS.Signals | number, killAfterMs?: number): Promise<number>
}

export interface ServerProcessOptions {
  /** Variables on top of PATH, HOME, HOST=127.0.0.1, PORT and LOG_LEVEL=info (the caller's win). */
  env: Record<string, string>
  /** The command (the compiled binary, say); `bun run src/main.ts` by default. */
  command?: string[]
  /** The working folder (the project folder by default). */
  cwd?: string
  /** Rejects (after killing the process) when it does not serve within this long. */
  timeoutMs?: number
  /**
   * How it is known to serve. `start line` (the default): PORT=0 unless `env` names one, and the port is read from
   * the server's `listening` line (or its supervisor's `workers listening`), so it needs LOG_LEVEL info or debug.
   * `healthz`: a port free a moment ago, polled every millisecond until `/healthz` answers 200 (any LOG_LEVEL;
   * `readyMs` is then the start-up time a client sees).
   */
  ready?: 'start line' | 'healthz'
  /** Keep only about this many characters of output (a long benchmark must not grow the harness's memory). */
  outputLimit?: number
}

/** A port that was free a moment ago on 127.0.0.1 (start the server on it right away). */
export function freePort(): number {
  const probe = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } })
  const { port } = probe
  probe.stop(true)
  return port
}

/** Resident set size of `pid` in MB, from /proc (NaN when it is gone or there is no /proc). */
export function rssMbOf(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8')
    const match = /VmRSS:\s+(\d+)\s+kB/.exec(status)
    return match ? Number(match[1]) / 1024 : Number.NaN
  } catch {
    return Number.NaN
  }
}

/** The port a server's start line names: one server, or the supervisor of WORKERS once every worker listens. */
const START_LINE = /"msg":"(?:workers )?listening","url":"http:\/\/[^"]*?:(\d+)\/?"/

/** Starts the service (or `command`) and resolves once it serves. The caller must `stop()` it. */
export async function startServerProcess(options: ServerProcessOptions): Promise<ServerProcess> {
  const { env, command = SOURCE_COMMAND, cwd = ROOT, timeoutMs = 60_000, ready = 'start line', outputLimit } = options
  const chosenPort = ready === 'healthz' ? freePort() : 0
  const startedAt = performance.now()
  const child = spawn(command, {
    cwd,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      HOST: '127.0.0.1',
      PORT: String(chosenPort),
      LOG_LEVEL: 'info',
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
      if (outputLimit !== undefined && text.length > 2 * outputLimit) text = text.slice(-outputLimit)
    }
  }
  void collect(child.stdout)
  void collect(child.stderr)
  const fail = async (why: string): Promise<never> => {
    if (child.exitCode === null) {
      child.kill('SIGKILL')
      await child.exited
    }
    throw new Error(`${why}:\n${text}`)
  }

  let port = ready === 'healthz' ? Number(env.PORT ?? chosenPort) : 0
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`server exited with ${child.exitCode ?? child.signalCode} before it served:\n${text}`)
    if (performance.now() - startedAt > timeoutMs) await fail(`server did not serve within ${timeoutMs} ms`)
    if (ready === 'start line') {
      const match = START_LINE.exec(text)
      if (match) {
        port = Number(match[1])
        break
      }
      await Bun.sleep(20)
      continue
    }
    const answered = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(1000) }).then(
      (response) => response.ok,
      () => false,
    )
    if (answered) break
    await Bun.sleep(1)
  }
  const readyMs = performance.now() - startedAt

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    pid: child.pid,
    process: child,
    readyMs,
    output: () => text,
    rssMb: () => rssMbOf(child.pid),
    async stop(signal: NodeJS.Signals | number = 'SIGTERM', killAfterMs?: number) {
      if (child.exitCode !== null || child.signalCode !== null) return child.exited
      child.kill(signal)
      const timer = killAfterMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), killAfterMs)
      const code = await child.exited
      clearTimeout(timer)
      return code
    },
  }
}
