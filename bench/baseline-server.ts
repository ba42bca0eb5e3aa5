/**
 * The machine's limit, for the A/B comparison: a minimal `Bun.serve` with no logic that answers each POST
 * `/turn/<shape>` with the recorded NDJSON lines of a real chat turn (same number, same sizes, same bytes), and each
 * message on the WebSocket `/ws/<shape>` with the same lines, one a frame. The shapes are the `*.ndjson` files in
 * `BASELINE_DIR`, recorded by the harness from the server under test. Run as its own process by the harness.
 */
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
    if (kind !== 'turn' || !body) return new Response('unknown shape', { status: 404 })
    await request.arrayBuffer()
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
  process.exit(0)
})
