import { describe, expect, it } from 'bun:test'
import { encodeLine, errorLine } from '../../../../plugins/chat/stream/lines'
import { pipeTurnToSocket } from '../../../../plugins/chat/stream/run-readers'
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
const newRun = () => new Run({ chatId: 'c', messageId: '1700000000000-message', userId: 1, agentId: 1, threadId: 'c' })

/** A socket that records which frames went out under one cork. */
function recordingSocket() {
  const writes: string[][] = []
  let corked: string[] | undefined
  return {
    writes,
    socket: {
      send(json: string) {
        if (corked) corked.push(json)
        else writes.push([json])
      },
      bufferedAmount: () => 0,
      cork(sending: () => void) {
        corked = []
        sending()
        if (corked.length) writes.push(corked)
        corked = undefined
      },
    },
  }
}

describe('pipeTurnToSocket with coalesce', () => {
  it('sends a burst of lines in one corked write, in order, and finishes with the run', async () => {
    const run = newRun()
    const { socket, writes } = recordingSocket()
    const piping = pipeTurnToSocket(
      { head: [encodeLine(errorLine('head'))], run },
      socket,
      1000,
      {},
      { coalesce: true },
    )
    for (let index = 0; index < 5; index++) run.append(line(index))
    run.finish()
    await piping.done
    expect(writes.flat().map((json) => JSON.parse(json).id ?? 'head')).toEqual(['head', 'm0', 'm1', 'm2', 'm3', 'm4'])
    // The head, then the whole burst under one cork.
    expect(writes.map((frames) => frames.length)).toEqual([1, 5])
  })

  it('follows a run that is still producing, one corked write per turn of the event loop', async () => {
    const run = newRun()
    const { socket, writes } = recordingSocket()
    const piping = pipeTurnToSocket({ head: [], run }, socket, 1000, {}, { coalesce: true })
    run.append(line(0))
    run.append(line(1))
    await new Promise((resolve) => setImmediate(resolve))
    run.append(line(2))
    run.finish()
    await piping.done
    expect(writes.map((frames) => frames.map((json) => JSON.parse(json).id))).toEqual([['m0', 'm1'], ['m2']])
  })
})
