/**
 * `bun bench/fan-out.ts [readers] [lines]` (1,000 and 100 unless given)
 *
 * What writing one line to one HTTP reader costs the process that serves a run, on a fixed amount of work: the
 * readers (a client process started here, on 127.0.0.1) follow one run through the chat's own NDJSON stream and
 * reader hooks, and the run appends its lines 10 ms apart, so each line is its own write to every reader, whatever
 * the machine's load. Prints the serving process's user and kernel CPU per reader and line over the lines. The
 * cross-node rejoin (`npm run bench -- --quick --only nodes-rejoin`) measures the same writes with the joins and
 * Redis around them, on figures that move with the machine's load: a node that falls behind writes several lines at
 * once.
 */
import { spawn } from 'bun'
import { Metrics } from '../lib/metrics'
import { Run } from '../plugins/chat/registry/run'
import { cutoffLine, encodeLine } from '../plugins/chat/stream/lines'
import { readerMetrics } from '../plugins/chat/stream/reader-metrics'
import { ndjsonStream } from '../plugins/chat/stream/run-readers'
import { withRaisedFileLimit } from './lib/workers'

/** The client side: `readers` requests read to their end. */
async function readAll(url: string, readers: number) {
  await Promise.all(
    Array.from({ length: readers }, async () => {
      const response = await fetch(url)
      for await (const _ of response.body as unknown as AsyncIterable<Uint8Array>);
    }),
  )
}

async function serveRun(readers: number, lines: number) {
  const run = new Run({ chatId: 'fan-out', messageId: 'fan-out', userId: 1, agentId: 1, threadId: 'fan-out' })
  const head = [encodeLine(cutoffLine('fan-out', true))]
  const hooks = readerMetrics(new Metrics())
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    idleTimeout: 0,
    fetch: () => new Response(ndjsonStream({ head, run }, lines + 1, hooks())),
  })
  const client = spawn(
    withRaisedFileLimit([process.execPath, import.meta.path, '--client', `${server.url}`, String(readers)]),
    // Bun's fetch otherwise holds requests beyond 256 at a time in a queue.
    { env: { ...process.env, BUN_CONFIG_MAX_HTTP_REQUESTS: '65000' }, stdout: 'inherit', stderr: 'inherit' },
  )
  try {
    for (let waited = 0; run.readerCount < readers; waited += 20) {
      if (waited > 30_000 || client.exitCode !== null) throw new Error(`only ${run.readerCount} readers came`)
      await Bun.sleep(20)
    }
    const before = process.cpuUsage()
    for (let index = 0; index < lines; index++) {
      run.append(
        encodeLine({
          id: 'm',
          role: 'assistant',
          content: `token ${index} `,
          isDelta: true,
          isInProcess: true,
          sort: 1,
        }),
      )
      await Bun.sleep(10)
    }
    const used = process.cpuUsage(before)
    run.finish()
    await client.exited
    const per = (micros: number) => (micros / (readers * lines)).toFixed(2)
    process.stdout.write(
      `fan-out: ${readers} readers, ${lines} lines 10 ms apart: user ${per(used.user)} µs, kernel ${per(used.system)} µs per reader and line\n`,
    )
  } finally {
    if (client.exitCode === null) client.kill('SIGKILL')
    server.stop(true)
  }
}

const [first, second, third] = process.argv.slice(2)
if (first === '--client') await readAll(second, Number(third))
else await serveRun(Number(first ?? 1000), Number(second ?? 100))
