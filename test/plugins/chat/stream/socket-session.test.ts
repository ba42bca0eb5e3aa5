import { describe, expect, it } from 'bun:test'
import { createLogger } from '../../../../lib/logger'
import type { TurnSource } from '../../../../plugins/chat/stream/run-readers'
import { SocketSession } from '../../../../plugins/chat/stream/socket-session'

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

/** A session that records the requests it opens, and whose turns end when the test says so. */
function recordingSession() {
  const sent: unknown[] = []
  const requests: unknown[] = []
  let finish: () => void = () => undefined
  const session = new SocketSession(
    { send: (json) => sent.push(JSON.parse(json)), bufferedAmount: () => 0, close: () => undefined },
    {
      authenticate: async () => ({}),
      openTurn: async (_access, request) => {
        requests.push(request)
        return { source: { head: [] }, userId: 1 }
      },
      abort: async () => undefined,
      pipe: () => {
        sent.push({ id: 'a turn line' })
        return { done: new Promise<void>((resolve) => (finish = resolve)), stop: () => undefined }
      },
      logger: createLogger('silent'),
    },
  )
  const settle = async () => {
    for (let turn = 0; turn < 10; turn++) await Promise.resolve()
    await Bun.sleep(0)
  }
  return { session, sent, requests, settle, finishTurn: () => finish() }
}

describe('chat socket session', () => {
  it('ignores unknown fields, as over HTTP, and takes a request sent as a binary frame', async () => {
    const { session, requests, sent, settle, finishTurn } = recordingSession()
    session.receive({ input: 'Hello', foo: 1, sessionSettings: { externalId: 'a', bar: 2 } })
    await settle()
    finishTurn()
    session.receive(new TextEncoder().encode(JSON.stringify({ input: 'Binary' })))
    await settle()
    expect(requests).toEqual([{ input: 'Hello', sessionSettings: { externalId: 'a' } }, { input: 'Binary' }])
    expect(sent).toEqual([{ id: 'a turn line' }, { id: 'a turn line' }])
  })

  it('refuses a message as the HTTP route refuses its body: too deep, or a NUL even in a field it would drop', async () => {
    const { session, requests, sent, settle } = recordingSession()
    // 100,000 levels ran validation out of stack (an internal error); HTTP answers 400 BODY_TOO_DEEP.
    const deep = `{"input":"hi","sessionSettings":{"externalId":"w1","securityContext":{"a":${'['.repeat(100_000)}${']'.repeat(100_000)}}}}`
    session.receive(deep)
    session.receive(JSON.parse(`{"input":"hi","x":${'['.repeat(65)}${']'.repeat(65)}}`))
    session.receive({ input: 'hi', unknown: 'a\u0000b' })
    await settle()
    expect(requests).toEqual([])
    expect(sent).toEqual([
      { error: 'Request body is nested deeper than 64 levels' },
      { error: 'Request body is nested deeper than 64 levels' },
      { error: 'Text must not contain the NUL character (U+0000)' },
    ])
  })

  it('reads a message that starts with a byte order mark, as the HTTP route reads such a body', async () => {
    const { session, requests, settle, finishTurn } = recordingSession()
    session.receive(`\ufeff${JSON.stringify({ input: 'Hello' })}`)
    await settle()
    finishTurn()
    session.receive(new TextEncoder().encode(`\ufeff${JSON.stringify({ input: 'Binary' })}`))
    await settle()
    expect(requests).toEqual([{ input: 'Hello' }, { input: 'Binary' }])
  })

  it("sends an invalid message's error line after the turn in progress, not among its lines", async () => {
    const { session, sent, settle, finishTurn } = recordingSession()
    session.receive({ input: 'Hello' })
    await settle()
    session.receive({ input: 5 })
    session.receive(new Uint8Array([0xff, 0xfe]))
    await settle()
    expect(sent).toEqual([{ id: 'a turn line' }])
    finishTurn()
    await settle()
    expect(sent).toEqual([
      { id: 'a turn line' },
      { error: 'input: expected string' },
      { error: 'Malformed message: expected one JSON chat request' },
    ])
  })

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

  it('answers an unpaired surrogate outside the question with an error line naming it, and takes one in the question', () => {
    // Stored as UTF-8 it would read back as U+FFFD: one user, one security context value for every such text.
    const { session, sent, piped } = pendingSession()
    session.receive(
      JSON.stringify({ input: 'Hi', sessionSettings: { externalId: 'a', securityContext: { k: '\uD800' } } }),
    )
    expect(sent.map((json) => JSON.parse(json))).toEqual([
      { error: 'Text must be well-formed Unicode: sessionSettings.securityContext.k has an unpaired surrogate' },
    ])
    expect(piped).toEqual([])
    // The question is free text: stored, and echoed, with U+FFFD in its place.
    session.receive(JSON.stringify({ input: 'Hi \uD800', sessionSettings: { externalId: 'a' } }))
    expect(sent).toHaveLength(1)
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
