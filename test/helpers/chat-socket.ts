import type { Line } from './chat'

/** A chat WebSocket client that collects every line it receives and how the socket closed. */
export async function connectChatSocket(url: string, headers: Record<string, string> = {}) {
  const socket = new WebSocket(url, { headers } as never)
  const lines: Line[] = []
  let closed: { code: number; reason: string } | undefined
  let notify: (() => void) | undefined
  socket.onmessage = (event) => {
    lines.push(JSON.parse(String(event.data)))
    notify?.()
  }
  socket.onclose = (event) => {
    closed = { code: event.code, reason: event.reason }
    notify?.()
  }
  await new Promise<void>((resolve, reject) => {
    socket.onopen = () => resolve()
    socket.onerror = () => reject(new Error('websocket failed to open'))
  })
  const wait = async (condition: () => boolean) => {
    while (!condition()) {
      if (closed && !condition())
        throw new Error(`socket closed (${closed.code} ${closed.reason}) before the expected lines`)
      await new Promise<void>((resolve) => (notify = resolve))
    }
  }
  return {
    socket,
    lines,
    closed: () => closed,
    send: (value: unknown) => socket.send(typeof value === 'string' ? value : JSON.stringify(value)),
    /** Resolves when `count` lines matching `predicate` have arrived. */
    waitFor: (predicate: (line: Line) => boolean, count = 1) => wait(() => lines.filter(predicate).length >= count),
    /** Resolves when the server has closed the socket. */
    async waitForClose() {
      while (!closed) await new Promise<void>((resolve) => (notify = resolve))
      return closed
    },
    close: () => socket.close(),
  }
}

export const turnEnded = (line: Line) => line.id === '__state__' || 'error' in line
