/**
 * The machine's limit, for the A/B comparison: a minimal `Bun.serve` with no logic that answers each POST
 * `/turn/<shape>` with the recorded NDJSON lines of a real chat turn (same number, same sizes, same bytes), and each
 * message on the WebSocket `/ws/<shape>` with the same lines, one a frame. The shapes are the `*.ndjson` files in
 * `BASELINE_DIR`, recorded by the harness from the server under test. Run as its own process by the harness.
 *
 * The durable limit: POST `/durable-turn/<shape>` answers the same bytes once it has stored them the way a durable
 * service must before its client sees them: the request and the turn's lines written to a `bun:sqlite` file
 * (`DURABLE_DB`, WAL, synchronous NORMAL, as the service opens its own), the turns that arrive together committed in
 * one transaction (group commit), the response sent after the commit. No logic besides: what a turn costs the service
 * beyond this is the service's own.
 */
import { Database } from 'bun:sqlite'
import { readdirSync, readFileSync } from 'node:fs'
import { basename, join } from 'node:path'

const directory = process.env.BASELINE_DIR ?? '.'
const bodies = new Map<string, Uint8Array<ArrayBuffer>>()
const frames = new Map<string, string[]>()
for (const file of readdirSync(directory).filter((name) => name.endsWith('.ndjson'))) {
  const text = readFileSync(join(directory, file), 'utf8')
  const shape = basename(file, '.ndjson')
  bodies.set(shape, new TextEncoder().encode(text))
  frames.set(
    shape,
    text.split('\n').filter((line) => line !== ''),
  )
}
const headers = { 'content-type': 'application/json' }

const durable = new Database(process.env.DURABLE_DB ?? ':memory:', { create: true })
durable.run('PRAGMA journal_mode = WAL')
durable.run('PRAGMA synchronous = NORMAL')
durable.run('CREATE TABLE IF NOT EXISTS turns (id INTEGER PRIMARY KEY, request TEXT NOT NULL, lines BLOB NOT NULL)')
const insertTurn = durable.prepare('INSERT INTO turns (request, lines) VALUES (?, ?)')
const commitTurns = durable.transaction((turns: Array<{ request: string; lines: Uint8Array }>) => {
  for (const turn of turns) insertTurn.run(turn.request, turn.lines)
})
/** The turns waiting for the next commit: every one that arrives during one turn of the event loop. */
let pending: Array<{ request: string; lines: Uint8Array; stored(): void; failed(error: unknown): void }> = []

function commitPending(): void {
  const turns = pending
  pending = []
  try {
    commitTurns(turns)
    for (const turn of turns) turn.stored()
  } catch (error) {
    for (const turn of turns) turn.failed(error)
  }
}

function stored(request: string, lines: Uint8Array): Promise<void> {
  return new Promise((resolve, reject) => {
    if (pending.length === 0) setImmediate(commitPending)
    pending.push({ request, lines, stored: resolve, failed: reject })
  })
}

const server = Bun.serve<{ shape: string }, never>({
  hostname: '127.0.0.1',
  port: Number(process.env.PORT ?? 0),
  reusePort: false,
  async fetch(request, server) {
    const { pathname } = new URL(request.url)
    if (pathname === '/healthz') return new Response('ok')
    const [, kind, shape = ''] = pathname.split('/')
    if (kind === 'ws' && frames.has(shape))
      return server.upgrade(request, { data: { shape } }) ? undefined : new Response('upgrade failed', { status: 400 })
    const body = bodies.get(shape)
    if ((kind !== 'turn' && kind !== 'durable-turn') || !body) return new Response('unknown shape', { status: 404 })
    if (kind === 'turn') {
      await request.arrayBuffer()
      return new Response(body, { headers })
    }
    await stored(await request.text(), body)
    return new Response(body, { headers })
  },
  websocket: {
    message(socket) {
      for (const frame of frames.get(socket.data.shape)!) socket.send(frame)
    },
  },
})

process.on('SIGTERM', () => {
  server.stop(true)
  durable.close()
  process.exit(0)
})
