import { spawn, type Subprocess } from 'bun'
import { join } from 'node:path'
import type { WorkerJob } from './worker-jobs'

/** Runs `argv` with the soft open-files limit raised to the hard limit (10,000 streams need that many sockets). */
export function withRaisedFileLimit(argv: string[]): string[] {
  return ['/bin/sh', '-c', 'ulimit -n "$(ulimit -Hn)" 2>/dev/null; exec "$@"', 'sh', ...argv]
}

/** The open-files limit processes started through `withRaisedFileLimit` get. */
export async function fileLimit(): Promise<number> {
  const child = spawn(['/bin/sh', '-c', 'ulimit -Hn'], { stdout: 'pipe' })
  const text = (await new Response(child.stdout).text()).trim()
  return text === 'unlimited' ? Number.POSITIVE_INFINITY : Number(text)
}

export interface ClientWorker {
  /** Sends the job and resolves with the worker's result. */
  run<T>(job: WorkerJob): Promise<T>
  kill(): void
}

/** Starts a client worker and waits until it is ready for its job (its imports loaded), so jobs start on time. */
export async function startWorker(timeoutMs = 30_000): Promise<ClientWorker> {
  const child: Subprocess<'pipe', 'pipe', 'inherit'> = spawn(
    withRaisedFileLimit([process.execPath, 'run', join(import.meta.dir, 'client-worker.ts')]),
    {
      stdin: 'pipe',
      stdout: 'pipe',
      stderr: 'inherit',
      // Bun's fetch otherwise holds requests beyond 256 at a time in a queue.
      env: { ...process.env, BUN_CONFIG_MAX_HTTP_REQUESTS: '65000' },
    },
  )
  const reader = child.stdout.getReader()
  const decoder = new TextDecoder()
  let text = ''
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
  while (!text.includes('ready\n')) {
    const { value, done } = await reader.read()
    if (done) throw new Error('client worker exited before it was ready')
    text += decoder.decode(value, { stream: true })
  }
  clearTimeout(timer)
  text = text.slice(text.indexOf('ready\n') + 6)
  return {
    async run<T>(job: WorkerJob): Promise<T> {
      child.stdin.write(`${JSON.stringify(job)}\n`)
      await child.stdin.flush()
      for (;;) {
        const { value, done } = await reader.read()
        if (value) text += decoder.decode(value, { stream: true })
        if (done || value?.includes(10)) break
      }
      await child.exited
      return JSON.parse(text.slice(0, text.indexOf('\n'))) as T
    },
    kill() {
      if (child.exitCode === null) child.kill('SIGKILL')
    },
  }
}
