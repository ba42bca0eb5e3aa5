import type { CutoffLine, ErrorLine, MessageLine, StateLine, StreamLine, ThreadMessage } from './model'

/** A stream line encoded once and shared by every reader: JSON for WebSocket frames, bytes (with `\n`) for NDJSON. */
export interface EncodedLine {
  readonly json: string
  readonly bytes: Uint8Array
}

const encoder = new TextEncoder()

export function encodeLine(line: StreamLine): EncodedLine {
  const json = JSON.stringify(line)
  return { json, bytes: encoder.encode(`${json}\n`) }
}

export function cutoffLine(chatId: string, isStreaming: boolean): CutoffLine {
  return { id: '__cutoff__', sort: 0, state: { chatId, isStreaming } }
}

/** `__state__` comes last: its `sort` follows the thread's last message. */
export function stateLine(messages: ThreadMessage[]): StateLine {
  const last = messages.length === 0 ? 0 : messages[messages.length - 1].sort
  return { id: '__state__', sort: last + 1, state: { messages } }
}

export function errorLine(message: string): ErrorLine {
  return { error: message }
}

/** The line of a whole message (user echo, tool call, end of an assistant message), from its stored form. */
export function messageLine(message: ThreadMessage, overrides: Partial<MessageLine> = {}): MessageLine {
  return { ...message, ...overrides }
}
