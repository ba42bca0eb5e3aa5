import { spawn, type Subprocess } from 'bun'
import { join } from 'node:path'

const root = join(import.meta.dir, '..', '..')

export interface ServerProcess {
  url: string
  port: number
  process: Subprocess<'ignore', 'pipe', 'pipe'>
  /** Everything the server printed so far. */
  output(): string
  stop(signal?: NodeJS.Signals | number): Promise<number>
}

/**
 * Starts the real server (`bun run src/main.ts`, or `command` such as the compiled binary) on 127.0.0.1 with port 0,
 * and resolves once it logs the port it listens on. The caller must `stop()` it.
 */
export async function startServerProcess(
  env: Record<string, string>,
  command?: string[],
  timeoutMs = 60_000,
  /** The working folder (the project folder by default). */
  cwd = root,
): Promise<ServerProcess> {
  const child = spawn(command ?? [process.execPath, 'run', join(root, 'src', 'main.ts')], {
    cwd,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      HOST: '127.0.0.1',
      PORT: '0',
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
    for await (const chunk of stream) text += decoder.decode(chunk, { stream: true })
  }
  void collect(child.stdout)
  void collect(child.stderr)
  const started = Date.now()
  let port = 0
  while (port === 0) {
    // One server, or the supervisor of WORKERS once every worker listens.
    const match = /"msg":"(?:workers )?listening","url":"http:\/\/[^:]+:(\d+)"/.exec(text)
    if (match) port = Number(match[1])
    else if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}:\n${text}`)
    else if (Date.now() - started > timeoutMs) {
      child.kill('SIGKILL')
      throw new Error(`server did not start in ${timeoutMs} ms:\n${text}`)
    } else await Bun.sleep(20)
  }
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    process: child,
    output: () => text,
    async stop(signal: NodeJS.Signals | number = 'SIGTERM') {
      if (child.exitCode === null) child.kill(signal)
      return child.exited
    },
  }
}
