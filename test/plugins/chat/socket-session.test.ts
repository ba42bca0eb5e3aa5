import { describe, expect, it } from 'bun:test'
import { createLogger } from '../../../lib/logger'
import type { TurnSource } from '../../../plugins/chat/run-readers'
import { SocketSession } from '../../../plugins/chat/socket-session'

/** A session whose turns open only when the test says so, recording what it pipes and sends. */
function pendingSession() {
  const sent: string[] = []
  const piped: TurnSource[] = []
  let open: (source: TurnSource) => void = () => undefined
  let opened = (): void => undefined
  const asked = new Promise<void>((resolve) => (opened = resolve))
  const session = new SocketSession(
    { send: (json) => sent.push(json), bufferedAmount: () => 0, close: () => undefined },
    {
      authenticate: async () => ({}),
      openTurn: () => {
        opened()
        return new Promise((resolve) => (open = (source) => resolve({ source, userId: 1 })))
      },
      abort: async () => undefined,
      pipe: (source) => {
        piped.push(source)
        return { done: Promise.resolve(), stop: () => undefined }
      },
      logger: createLogger('silent'),
    },
  )
  return { session, sent, piped, asked, open: (source: TurnSource) => open(source) }
}

describe('chat socket session', () => {
  it('does not follow a turn that finished opening after the client left', async () => {
    const { session, piped, sent, asked, open } = pendingSession()
    session.receive(JSON.stringify({ input: 'Hello' }))
    await asked
    session.close()
    open({ head: [] })
    // The pump resumes after the turn opened; give it the turns it needs to get there.
    for (let turn = 0; turn < 5; turn++) await Promise.resolve()
    await Bun.sleep(0)
    expect(piped).toEqual([])
    expect(sent).toEqual([])
  })

  it('answers a request with the NUL character with an error line and opens no turn', () => {
    // Postgres cannot hold it in text; refused alike on every storage, as over HTTP.
    const { session, sent, piped } = pendingSession()
    session.receive(JSON.stringify({ input: 'Hel\u0000lo' }))
    // Answered at once, before any await: the request never reached the queue of turns.
    expect(sent.map((json) => JSON.parse(json))).toEqual([
      { error: 'Text must not contain the NUL character (U+0000)' },
    ])
    expect(piped).toEqual([])
  })

  it('follows a turn that finished opening while the client stayed', async () => {
    const { session, piped, asked, open } = pendingSession()
    session.receive(JSON.stringify({ input: 'Hello' }))
    await asked
    const source: TurnSource = { head: [] }
    open(source)
    for (let turn = 0; turn < 5; turn++) await Promise.resolve()
    await Bun.sleep(0)
    expect(piped).toEqual([source])
  })
})
