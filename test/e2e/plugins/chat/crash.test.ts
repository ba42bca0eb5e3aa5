import { Database } from 'bun:sqlite'
import { afterAll, describe, expect, it } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { lineReader, mergeLines, messageId, type Line } from '../../../helpers/chat'
import { TEST_DEMO_DATA } from '../../../helpers/demo-data'
import { serverDatabase } from '../../../helpers/server-database'
import { startServerProcess, type ServerProcess } from '../../../../harness/server-process'

const TRIALS = 10
const dir = mkdtempSync(join(tmpdir(), 'chat-crash-'))
const key = 'ak_crash_test_0123456789'
const servers: ServerProcess[] = []
// Its SQLite file, or with TEST_STORAGE=postgres a Postgres database: the service is killed, its database never.
const database = await serverDatabase(dir)
afterAll(async () => {
  for (const server of servers) await server.stop('SIGKILL')
  await database.drop()
  rmSync(dir, { recursive: true, force: true })
})

// The offline analyst over the demo model: each answer is two tool calls with their results, then about sixty
// deltas of text a few milliseconds apart, so a kill after any number of received lines lands mid-stream.
writeFileSync(
  join(dir, 'bootstrap.yaml'),
  `accounts:
  - name: acme
    plan: enterprise
    apiKeys: [{ name: admin, key: ${key}, admin: true }]
    deployments:
      - id: 1
        name: Crash test
        model: demo
        agents: [{ id: 1, name: Analyst, kind: analyst }]
`,
)
const env = {
  ...database.env,
  BOOTSTRAP_FILE: join(dir, 'bootstrap.yaml'),
  DEMO_DATA_PATH: TEST_DEMO_DATA,
  ANALYST_DELAY_MS: '3',
}
const QUESTIONS = [
  'What was the revenue by region?',
  'Top 5 products by revenue',
  'Units sold by category',
  'Monthly revenue in 2024',
]

const post = (server: ServerProcess, body: object) =>
  fetch(`${server.url}/api/v1/public/acme/agents/1/chat/stream-chat-state`, {
    method: 'POST',
    headers: { authorization: `Api-Key ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ sessionSettings: { externalId: 'crash-user' }, ...body }),
  })

async function start(): Promise<ServerProcess> {
  const server = await startServerProcess({ env })
  servers.push(server)
  return server
}

async function kill(server: ServerProcess): Promise<void> {
  await server.stop('SIGKILL')
  servers.splice(servers.indexOf(server), 1)
}

/** The thread as a client reads it: a request with the chatId and no input. */
async function readThread(server: ServerProcess, chatId: string): Promise<Line[]> {
  const lines = await lineReader(await post(server, { chatId })).rest()
  expect(lines.map((line) => line.id)).toEqual(['__cutoff__', '__state__'])
  return lines[1].state!.messages as Line[]
}

/**
 * Sends a turn and kills the server once the client has received `killAfter` lines; returns every line the client
 * received, including those already on their way when the process died.
 */
async function crashTurn(server: ServerProcess, chatId: string, turn: number, killAfter: number): Promise<Line[]> {
  const reader = lineReader(
    await post(server, { chatId, input: QUESTIONS[turn % QUESTIONS.length], messageId: messageId(turn) }),
  )
  const received: Line[] = []
  let killing: Promise<void> | undefined
  try {
    for (;;) {
      if (received.length >= killAfter) killing ??= kill(server)
      const line = await reader.next()
      if (!line) break
      received.push(line)
    }
  } catch {
    // The connection broke when the process died.
  }
  await (killing ?? kill(server))
  return received
}

/** Checks that everything the client received of `turn` is in the thread as stored. */
function expectReceivedIsStored(thread: Line[], received: Line[], turn: number, killAfter: number): void {
  const context = `turn ${turn}, killed after ${killAfter} lines`
  const byId = new Map(thread.map((message) => [message.id, message]))
  const echo = received.find((line) => line.role === 'user')
  if (echo) expect(byId.get(echo.id!), context).toMatchObject({ role: 'user', content: echo.content })
  const seen = mergeLines(received.filter((line) => line.role === 'assistant'))
  for (const message of seen) {
    const stored = byId.get(message.id as string)
    expect(stored, `${context}: assistant message ${message.id} was lost`).toBeDefined()
    expect(stored!.isInProcess, context).toBe(false)
    expect(stored!.graphPath, context).toEqual(message.graphPath as string[])
    expect(
      (stored!.content ?? '').startsWith(message.content),
      `${context}: stored ${JSON.stringify(stored!.content)}`,
    ).toBe(true)
    const toolCall = message.toolCall as Line['toolCall']
    if (toolCall)
      expect(stored!.toolCall, context).toEqual(
        toolCall.result === undefined
          ? expect.objectContaining({ name: toolCall.name, input: toolCall.input })
          : toolCall,
      )
  }
  // The turn's messages as stored: either the run ended before the crash (its last message is the final answer) or
  // the crash cut it short and its last message is marked interrupted.
  const own = echo ? thread.slice(thread.findIndex((message) => message.id === echo.id) + 1) : []
  if (seen.length > 0) expect(own.length, context).toBeGreaterThan(0)
  expect(
    own.every((message) => !message.isInProcess),
    context,
  ).toBe(true)
  const last = own.at(-1)
  if (last && !last.interrupted) {
    expect(
      own.some((message) => message.interrupted),
      context,
    ).toBe(false)
    expect(last, `${context}: a turn not marked interrupted has its final answer`).toMatchObject({
      graphPath: ['final'],
    })
  }
}

/** SQLite's own check of the file the killed process wrote; a Postgres server, not killed, keeps its own. */
function integrityCheck(): string {
  if (database.dialect !== 'sqlite') return 'ok'
  const sqlite = new Database(database.env.DB_PATH)
  try {
    return sqlite.query<{ integrity_check: string }, []>('PRAGMA integrity_check').get()!.integrity_check
  } finally {
    sqlite.close()
  }
}

describe('crash durability', () => {
  it('keeps every line a client received when the process is killed mid-turn', async () => {
    let server = await start()
    // A thread with one whole turn to start from.
    const first = await lineReader(await post(server, { input: QUESTIONS[0], messageId: messageId(100) })).rest()
    const chatId = first[0].state!.chatId!
    expect(first.at(-1)!.id).toBe('__state__')

    let cutMidStream = 0
    for (let turn = 1; turn <= TRIALS; turn++) {
      // Kill points spread over the turn (every answer is longer than 60 lines): before the echo, among the tool
      // calls, within the streamed answer.
      const killAfter = Math.floor((turn - 1 + Math.random()) * (60 / TRIALS))
      const received = await crashTurn(server, chatId, turn, killAfter)
      if (received.some((line) => line.role === 'assistant') && !received.some((line) => line.id === '__state__'))
        cutMidStream++
      expect(integrityCheck()).toBe('ok')
      server = await start()
      const thread = await readThread(server, chatId)
      expectReceivedIsStored(thread, received, turn, killAfter)
    }

    // After all that, the thread takes a new message and answers it in full.
    const next = await lineReader(await post(server, { chatId, input: QUESTIONS[1], messageId: messageId(200) })).rest()
    expect(next.find((line) => line.role === 'user')?.content).toBe(QUESTIONS[1])
    expect(next.at(-1)!.id).toBe('__state__')
    expect((next.at(-1)!.state!.messages as Line[]).every((message) => !message.isInProcess)).toBe(true)
    expect(await server.stop('SIGTERM')).toBe(0)
    servers.splice(servers.indexOf(server), 1)
    expect(cutMidStream).toBeGreaterThan(0)
    // Eleven server starts from source: about 10 s on a quiet machine, several times that on a busy one.
  }, 180_000)
})
