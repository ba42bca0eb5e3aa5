import type { Server } from 'bun'
import type { App } from '../../src/app'
import { chatBase, lineReader, type Line } from './chat'

/** A turn in flight: lines can be read as they come, or all at once. */
export interface OpenTurn {
  next(): Promise<Line | undefined>
  rest(): Promise<Line[]>
  /** Drops the connection (HTTP: cancels the body; WebSocket: closes the socket). */
  disconnect(): void
}

/** One way of talking to the chat: `app.handle()`, HTTP on a listening server, or the WebSocket mirror. */
export interface Transport {
  name: string
  open(body: unknown, headers: Record<string, string>, path?: string): Promise<OpenTurn>
  close(): Promise<void>
}

export function handleTransport(app: App): Transport {
  return {
    name: 'app.handle',
    async open(body, headers, path = chatBase()) {
      const response = await app.handle(
        new Request(`http://localhost${path}/stream-chat-state`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body: JSON.stringify(body),
        }),
      )
      if (response.status !== 200) throw new Error(`status ${response.status}: ${await response.text()}`)
      const reader = lineReader(response)
      return { next: reader.next, rest: () => reader.rest(), disconnect: () => void reader.cancel() }
    },
    async close() {},
  }
}

/** Starts the app on 127.0.0.1 (a free port, never shared) and talks HTTP to it. */
export function listen(app: App): Server<unknown> {
  app.listen({ port: 0, hostname: '127.0.0.1', reusePort: false })
  return app.server!
}

export function httpTransport(app: App): Transport {
  const server = listen(app)
  const origin = `http://127.0.0.1:${server.port}`
  return {
    name: 'http',
    async open(body, headers, path = chatBase()) {
      const controller = new AbortController()
      const response = await fetch(`${origin}${path}/stream-chat-state`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
        signal: controller.signal,
      })
      if (response.status !== 200) throw new Error(`status ${response.status}: ${await response.text()}`)
      const reader = lineReader(response)
      return {
        next: reader.next,
        rest: () => reader.rest(),
        disconnect: () => {
          controller.abort()
        },
      }
    },
    async close() {
      await app.stop(true)
    },
  }
}

/** A turn over a fresh WebSocket: the turn ends with `__state__` or an error line. */
export function wsTransport(app: App): Transport {
  const server = listen(app)
  const origin = `ws://127.0.0.1:${server.port}`
  const sockets = new Set<WebSocket>()
  return {
    name: 'websocket',
    async open(body, headers, path = chatBase()) {
      const socket = new WebSocket(`${origin}${path}/ws`, { headers } as never)
      sockets.add(socket)
      const queue: Line[] = []
      let waiter: (() => void) | undefined
      let ended = false
      socket.onmessage = (event) => {
        queue.push(JSON.parse(String(event.data)))
        waiter?.()
      }
      socket.onclose = () => {
        ended = true
        waiter?.()
      }
      await new Promise<void>((resolve, reject) => {
        socket.onopen = () => resolve()
        socket.onerror = () => reject(new Error('websocket failed to open'))
      })
      socket.send(JSON.stringify(body))
      let finished = false
      const next = async (): Promise<Line | undefined> => {
        if (finished) return undefined
        while (queue.length === 0 && !ended) await new Promise<void>((resolve) => (waiter = resolve))
        const line = queue.shift()
        if (!line) return undefined
        if (line.id === '__state__' || 'error' in line) {
          finished = true
          socket.close()
        }
        return line
      }
      return {
        next,
        async rest() {
          const lines: Line[] = []
          for (let line = await next(); line; line = await next()) lines.push(line)
          return lines
        },
        disconnect: () => socket.close(),
      }
    },
    async close() {
      for (const socket of sockets) socket.close()
      await app.stop(true)
    },
  }
}

export const transports = [
  { name: 'app.handle', create: handleTransport },
  { name: 'http', create: httpTransport },
  { name: 'websocket', create: wsTransport },
] as const
