import { describe, expect, it } from 'bun:test'
import { encodeLine, errorLine } from '../../../../plugins/chat/stream/lines'
import { ndjsonStream, pipeTurnToSocket, TOO_SLOW } from '../../../../plugins/chat/stream/run-readers'
import { Run } from '../../../../plugins/chat/registry/run'

const line = (index: number) =>
  encodeLine({
    id: `m${index}`,
    role: 'assistant',
    content: `chunk ${index}`,
    isDelta: true,
    isInProcess: true,
    sort: 1,
  })
const decode = async (stream: ReadableStream<Uint8Array>) =>
  (await new Response(stream).text())
    .split('\n')
    .filter(Boolean)
    .map((text) => JSON.parse(text))
const newRun = () => new Run({ chatId: 'c', messageId: '1700000000000-message', userId: 1, agentId: 1, threadId: 'c' })

describe('ndjsonStream', () => {
  it('replays the log, follows it live and ends with the run', async () => {
    const run = newRun()
    run.append(line(0))
    const stream = ndjsonStream({ head: [encodeLine(errorLine('head'))], run }, 100)
    const reading = decode(stream)
    for (let index = 1; index < 5; index++) {
      await Bun.sleep(1)
      run.append(line(index))
    }
    run.finish()
    const lines = await reading
    expect(lines.map((entry) => entry.id ?? entry.error)).toEqual(['head', 'm0', 'm1', 'm2', 'm3', 'm4'])
  })

  it('drops a reader that falls too far behind, without holding up the run', async () => {
    const run = newRun()
    const closed: string[] = []
    const stream = ndjsonStream({ head: [], run }, 3, { onClose: () => closed.push('closed') })
    const reader = stream.getReader()
    run.append(line(0))
    await reader.read()
    // The client reads nothing more while the run goes on.
    for (let index = 1; index < 10; index++) run.append(line(index))
    expect(closed).toEqual(['closed'])
    expect(run.lines).toHaveLength(10)
    const rest: string[] = []
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read())
      rest.push(new TextDecoder().decode(chunk.value))
    expect(rest.join('').trim().split('\n').at(-1)).toBe(TOO_SLOW.json)
  })

  it('detaches a cancelled reader and leaves the run alone', async () => {
    const run = newRun()
    const stream = ndjsonStream({ head: [], run }, 100)
    const reader = stream.getReader()
    run.append(line(0))
    await reader.read()
    await reader.cancel()
    expect(run.readerCount).toBe(0)
    run.append(line(1))
    expect(run.done).toBe(false)
  })
})

describe('pipeTurnToSocket', () => {
  it('sends one line a frame and finishes with the run', async () => {
    const run = newRun()
    const sent: string[] = []
    const piping = pipeTurnToSocket(
      { head: [encodeLine(errorLine('head'))], run },
      { send: (json) => sent.push(json), bufferedAmount: () => 0 },
      1000,
    )
    run.append(line(0))
    run.append(line(1))
    run.finish()
    await piping.done
    expect(sent.map((json) => JSON.parse(json).id ?? 'head')).toEqual(['head', 'm0', 'm1'])
  })

  it('drops a socket whose unsent bytes pass the bound', async () => {
    const run = newRun()
    const sent: string[] = []
    let buffered = 0
    const piping = pipeTurnToSocket(
      { head: [], run },
      { send: (json) => sent.push(json), bufferedAmount: () => buffered },
      1000,
    )
    run.append(line(0))
    buffered = 5000
    run.append(line(1))
    await piping.done
    expect(sent).toEqual([line(0).json, TOO_SLOW.json])
    expect(run.readerCount).toBe(0)
  })
})
