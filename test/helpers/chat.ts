import { Value } from '@sinclair/typebox/value'
import { StreamLine, type MessageLine, type ThreadMessage } from '../../plugins/chat/model'

export const chatBase = (account = 'acme', agentId = 1) => `/api/v1/public/${account}/agents/${agentId}/chat`

/** Any stream line, with every field optional: what a client sees before it knows the line's kind. */
export type Line = Partial<Omit<MessageLine, 'id' | 'sort'>> & {
  id?: string
  sort?: number
  state?: { chatId?: string; isStreaming?: boolean; messages?: ThreadMessage[] }
  error?: string
}

/** Parses a whole NDJSON body, checking every line against the one line schema. */
export async function readLines(response: Response): Promise<Line[]> {
  const text = await response.text()
  if (text !== '' && !text.endsWith('\n'))
    throw new Error(`NDJSON body does not end with a newline: ${JSON.stringify(text.slice(-80))}`)
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const parsed = JSON.parse(line)
      if (!Value.Check(StreamLine, parsed)) throw new Error(`line does not match the StreamLine schema: ${line}`)
      return parsed as Line
    })
}

/** Reads NDJSON lines as they arrive; `next()` resolves with the next line or undefined at the end. */
export function lineReader(response: Response) {
  const reader = response.body!.getReader()
  const decoder = new TextDecoder()
  let buffer = ''
  const pending: Line[] = []
  let ended = false
  return {
    async next(): Promise<Line | undefined> {
      while (pending.length === 0 && !ended) {
        const { value, done } = await reader.read()
        if (done) {
          ended = true
          break
        }
        buffer += decoder.decode(value, { stream: true })
        let newline = buffer.indexOf('\n')
        while (newline >= 0) {
          const line = buffer.slice(0, newline)
          buffer = buffer.slice(newline + 1)
          if (line !== '') pending.push(JSON.parse(line))
          newline = buffer.indexOf('\n')
        }
      }
      return pending.shift()
    },
    async rest(): Promise<Line[]> {
      const lines: Line[] = []
      for (let line = await this.next(); line; line = await this.next()) lines.push(line)
      return lines
    },
    cancel: () => reader.cancel(),
  }
}

/**
 * The final answer over merged messages: the last assistant message whose `graphPath` starts with `final` and holds
 * at most 2 entries.
 */
export function finalAnswer(messages: Array<{ role?: string; graphPath?: string[]; content?: string }>) {
  const finals = messages.filter(
    (message) => message.role === 'assistant' && message.graphPath?.[0] === 'final' && message.graphPath.length <= 2,
  )
  return finals[finals.length - 1]
}

/** Merges stream lines by `id` into messages: deltas append content, whole lines replace fields. */
export function mergeLines(lines: Line[]) {
  const messages = new Map<string, Record<string, unknown> & { content: string }>()
  for (const line of lines) {
    if (!('role' in line) || typeof line.id !== 'string') continue
    const existing = messages.get(line.id)
    if (existing && line.isDelta)
      messages.set(line.id, { ...existing, ...line, content: existing.content + (line.content ?? '') })
    else messages.set(line.id, { ...(existing ?? {}), ...line, content: line.content ?? '' } as never)
  }
  return [...messages.values()]
}

export const messageId = (offset = 0) => `${1_700_000_000_000 + offset}-message`

/** A raw NDJSON body line by line, each line's exact text (to compare bytes, not parsed objects). */
export function rawLines(response: Response) {
  const reader = response.body!.getReader()
  const decoder = new TextDecoder()
  let buffer = ''
  const pending: string[] = []
  return {
    async next(): Promise<string | undefined> {
      while (pending.length === 0) {
        const { value, done } = await reader.read()
        if (done) return undefined
        buffer += decoder.decode(value, { stream: true })
        const parts = buffer.split('\n')
        buffer = parts.pop()!
        pending.push(...parts.filter((part) => part !== ''))
      }
      return pending.shift()
    },
    async until(count: number, wanted: (line: string) => boolean): Promise<string[]> {
      const lines: string[] = []
      while (lines.filter(wanted).length < count) {
        const line = await this.next()
        if (line === undefined) throw new Error(`the stream ended first: ${lines.slice(-3).join('\n')}`)
        lines.push(line)
      }
      return lines
    },
    async rest(): Promise<string[]> {
      const lines: string[] = []
      for (let line = await this.next(); line !== undefined; line = await this.next()) lines.push(line)
      return lines
    },
  }
}
