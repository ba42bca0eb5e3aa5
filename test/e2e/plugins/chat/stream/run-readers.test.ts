import { afterEach, describe, expect, it } from 'bun:test'
import { connect, type Socket } from 'node:net'
import type { Server } from 'bun'
import { cutoffLine, encodeLine, type EncodedLine } from '../../../../../plugins/chat/stream/lines'
import { ndjsonStream, TOO_SLOW } from '../../../../../plugins/chat/stream/run-readers'
import { Run } from '../../../../../plugins/chat/registry/run'

const newRun = () => new Run({ chatId: 'c', messageId: '1700000000000-message', userId: 1, agentId: 1, threadId: 'c' })
const delta = (index: number, content = `token ${index}`): EncodedLine =>
  encodeLine({ id: `m${index}`, role: 'assistant', content, isDelta: true, isInProcess: true, sort: 1 })

let server: Server<unknown> | undefined
const sockets: Socket[] = []
afterEach(() => {
  for (const socket of sockets.splice(0)) socket.destroy()
  server?.stop(true)
  server = undefined
})

const CUTOFF = encodeLine(cutoffLine('c', true))

/**
 * Serves `run` to every request as a chat stream does, its `__cutoff__` first, over a real socket (Bun's HTTP sink,
 * not a JS reader).
 */
function serve(run: Run, maxLagLines = 1000, onClose?: () => void): string {
  server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch: () =>
      new Response(ndjsonStream({ head: [CUTOFF], run }, maxLagLines, { onClose }), {
        headers: { 'content-type': 'application/x-ndjson' },
      }),
  })
  return `http://127.0.0.1:${server.port}/`
}

/** The lines a client has read so far after its `__cutoff__`, and a wait for the `count`-th. */
async function client(url: string) {
  const response = await fetch(url)
  const lines: string[] = []
  let text = ''
  const waiting: Array<() => void> = []
  const done = (async () => {
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      text += new TextDecoder().decode(chunk)
      const parts = text.split('\n')
      text = parts.pop()!
      lines.push(...parts.filter((part) => part !== CUTOFF.json))
      for (const wake of waiting.splice(0)) wake()
    }
  })()
  const has = async (count: number, withinMs: number) => {
    const deadline = performance.now() + withinMs
    while (lines.length < count && performance.now() < deadline)
      await Promise.race([new Promise<void>((resolve) => waiting.push(resolve)), Bun.sleep(5)])
    return lines.length >= count
  }
  return { lines, has, done }
}

describe('ndjsonStream over HTTP', () => {
  it('sends each line to the client as it is published, before the next one', async () => {
    const run = newRun()
    const reader = await client(serve(run))
    // A small line stays under the sink's high-water mark: it must leave at once all the same, token by token.
    for (let index = 0; index < 20; index++) {
      run.append(delta(index))
      expect(await reader.has(index + 1, 1000)).toBe(true)
    }
    run.finish()
    await reader.done
    expect(reader.lines).toEqual(Array.from({ length: 20 }, (_, index) => delta(index).json))
  })

  it('gives many readers every line in order, joined at different points of the run', async () => {
    const run = newRun()
    const url = serve(run)
    const readers = []
    for (let index = 0; index < 60; index++) {
      if (index % 3 === 0) readers.push(await client(url))
      run.append(delta(index))
      // Lines published in a burst go out together: a reader gets them in one chunk, in order.
      if (index % 7 === 0) for (let extra = 0; extra < 5; extra++) run.append(delta(1000 + index * 10 + extra))
      await Bun.sleep(1)
    }
    run.finish()
    await Promise.all(readers.map((reader) => reader.done))
    const expected = run.lines.map((line) => line.json)
    for (const reader of readers) expect(reader.lines).toEqual(expected)
  })

  it('drops a client that stops reading once it is too far behind, and keeps serving the others', async () => {
    const run = newRun()
    let closed = 0
    const url = serve(run, 20, () => closed++)
    const reading = await client(url)
    // A client that sends its request and then reads nothing: its socket's buffers fill, Bun's sink asks the
    // reader to wait, its cursor stops, and the run runs past it.
    const stalled = connect(Number(new URL(url).port), '127.0.0.1')
    sockets.push(stalled)
    stalled.pause()
    stalled.write(`GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`)
    await Bun.sleep(50)
    const big = 'x'.repeat(64 * 1024)
    for (let index = 0; index < 400 && closed === 0; index++) {
      run.append(delta(index, big))
      await Bun.sleep(1)
    }
    expect(closed).toBe(1)
    const appended = run.lines.length
    run.append(delta(appended))
    run.finish()
    await reading.done
    expect(reading.lines).toHaveLength(appended + 1)
    expect(reading.lines.at(-1)).toBe(delta(appended).json)
    // What the stalled client had before it was dropped ends with the error line that asks it to rejoin.
    stalled.resume()
    let received = ''
    stalled.on('data', (chunk) => (received += chunk.toString()))
    // The response ends (chunked, the connection kept): read until its last chunk.
    for (let waited = 0; !received.endsWith('0\r\n\r\n') && waited < 2000; waited += 10) await Bun.sleep(10)
    expect(received.endsWith(`${TOO_SLOW.json}\n\r\n0\r\n\r\n`)).toBe(true)
  })
})
