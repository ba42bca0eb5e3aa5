import type { CutoffLine, ErrorLine, MessageLine, StateLine, StreamLine, ThreadMessage } from '../model'

/**
 * A stream line encoded once and shared by every reader: JSON for WebSocket frames, bytes (with `\n`) for NDJSON.
 * The bytes are made on first use only: WebSocket readers never need them, and a reader that sends a burst of
 * lines encodes the burst in one piece.
 */
export interface EncodedLine {
  readonly json: string
  readonly bytes: Uint8Array
}

const encoder = new TextEncoder()

class Encoded implements EncodedLine {
  private encoded: Uint8Array | undefined
  constructor(readonly json: string) {}
  get bytes(): Uint8Array {
    this.encoded ??= encoder.encode(`${this.json}\n`)
    return this.encoded
  }
}

export function encodeLine(line: StreamLine): EncodedLine {
  return new Encoded(JSON.stringify(line))
}

/** A line already encoded elsewhere (a run followed from another node), kept byte for byte. */
export function encodedLine(json: string): EncodedLine {
  return new Encoded(json)
}

/**
 * The NDJSON of several lines at once, for a direct stream's `write`. Lines read by several readers (`shared`) go as
 * bytes made once: a single line's own, and a span of several lines that a second reader asks for (readers caught up
 * all ask for the same span: a thousand joiners of a run they are a few lines behind). Anything else goes as text:
 * the socket's sink encodes it straight into its own buffer, so a reader's chunk costs no `Uint8Array` of its own
 * (the turn's end, a whole thread in `__state__`, was otherwise a string, its copy with `\n` and its bytes, for each
 * of ten thousand runs ending together).
 */
export function encodeLines(
  lines: readonly EncodedLine[],
  from: number,
  to: number,
  shared = false,
  view?: LineView,
): string | Uint8Array {
  if (to - from === 1 && shared) return (view ? view(lines[from]) : lines[from]).bytes
  if (!shared) return textOf(lines, from, to, view)
  const last = lastSpans.get(lines)
  if (!last || last.from !== from || last.to !== to || last.view !== view) {
    // A span asked for once (a joiner's replay) stays text; the second reader asking for it makes its bytes.
    lastSpans.set(lines, { from, to, view, bytes: undefined })
    return textOf(lines, from, to, view)
  }
  last.bytes ??= encoder.encode(textOf(lines, from, to, view))
  return last.bytes
}

/** The span of a log last asked for by one of several readers, by log (its published part never changes). */
const lastSpans = new WeakMap<
  readonly EncodedLine[],
  { from: number; to: number; view: LineView | undefined; bytes: Uint8Array | undefined }
>()

function textOf(lines: readonly EncodedLine[], from: number, to: number, view?: LineView): string {
  let text = ''
  if (view) for (let index = from; index < to; index++) text += `${view(lines[index]).json}\n`
  else for (let index = from; index < to; index++) text += `${lines[index].json}\n`
  return text
}

/** How one reader sees a run's lines, when not as they are. */
export type LineView = (line: EncodedLine) => EncodedLine

/** Each line as a reader outside development mode reads it, made once. */
const strippedLines = new WeakMap<EncodedLine, EncodedLine>()

/**
 * A line without `thinking` (on a message, or on the messages of `__state__`): a run of a development branch as a
 * request outside development mode reads it. Lines without the key are kept as they are.
 */
export const withoutThinking: LineView = (line) => {
  // Made once a line, shared by every reader of the run that reads it this way (a thousand joiners); kept beside
  // the line rather than in it, so the lines nobody reads this way cost nothing more.
  let stripped = strippedLines.get(line)
  if (!stripped) strippedLines.set(line, (stripped = strippedOfThinking(line)))
  return stripped
}

function strippedOfThinking(line: EncodedLine): EncodedLine {
  // The key as JSON writes it; in a text value its quotes are escaped, so only a field matches.
  if (!line.json.includes('"thinking":')) return line
  const parsed = JSON.parse(line.json) as { thinking?: unknown; state?: { messages?: Array<{ thinking?: unknown }> } }
  delete parsed.thinking
  for (const message of parsed.state?.messages ?? []) delete message.thinking
  return new Encoded(JSON.stringify(parsed))
}

/**
 * The delta lines of one assistant message. Everything before `content` is the same on every delta, so it is
 * serialised once per message; each delta then costs one string's JSON. The result is exactly
 * `encodeLine({ id, role: 'assistant', sort, graphPath, content, isDelta: true, isInProcess: true })`.
 */
export function deltaLines(message: {
  id: string
  sort: number
  graphPath: readonly string[]
}): (content: string) => EncodedLine {
  const head = `${JSON.stringify({ id: message.id, role: 'assistant', sort: message.sort, graphPath: message.graphPath }).slice(0, -1)},"content":`
  return (content) => new Delta(head, content)
}

/**
 * A delta line keeps only its content and the message's shared head; its JSON is made when a reader sends it. A
 * run's log holds every line until the run ends (a rejoin replays it), and for a long answer most lines are deltas:
 * the log then costs little more than the answer's text.
 */
class Delta implements EncodedLine {
  private encoded: Uint8Array | undefined
  constructor(
    private readonly head: string,
    private readonly content: string,
  ) {}
  get json(): string {
    return `${this.head}${JSON.stringify(this.content)},"isDelta":true,"isInProcess":true}`
  }
  get bytes(): Uint8Array {
    this.encoded ??= encoder.encode(`${this.json}\n`)
    return this.encoded
  }
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
