import { wallMs } from './stats'

/** What one turn looked like to the client. */
export interface TurnOutcome {
  ok: boolean
  /** The HTTP status, when a response came. */
  status?: number
  /** Why the turn is not ok (HTTP status, an error line, a missing `__state__`, a network failure). */
  failure?: string
  lines: number
  bytes: number
  /** Milliseconds from sending the request to the end of the response. */
  totalMs: number
  /** Milliseconds from sending to the `__cutoff__` line, the first assistant delta and `__state__` (when `timed`). */
  cutoffMs?: number
  firstDeltaMs?: number
  stateMs?: number
}

const CUTOFF = '"id":"__cutoff__"'
const STATE = '{"id":"__state__"'
const DELTA = '"isDelta":true'
const ERROR = '{"error":'
const CARRY = 40

/**
 * Reads a chat NDJSON response to its end. It counts lines and bytes, and finds the markers by text search over
 * the decoded chunks (with a small carry-over, so a marker split between chunks is still found) rather than by
 * parsing every line: the client must cost little next to the server it measures, and the baseline's lines are
 * read the same way.
 */
export async function readTurn(response: Response, sentAt: number, timed: boolean): Promise<TurnOutcome> {
  const outcome: TurnOutcome = { ok: false, status: response.status, lines: 0, bytes: 0, totalMs: 0 }
  if (!response.ok || !response.body) {
    outcome.failure = `HTTP ${response.status}`
    await response.arrayBuffer().catch(() => undefined)
    outcome.totalMs = wallMs() - sentAt
    return outcome
  }
  const decoder = new TextDecoder()
  let carry = ''
  let sawState = false
  let sawError = false
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    const now = wallMs()
    outcome.bytes += chunk.byteLength
    for (let index = chunk.indexOf(10); index >= 0; index = chunk.indexOf(10, index + 1)) outcome.lines++
    const text = carry + decoder.decode(chunk, { stream: true })
    if (timed) {
      if (outcome.cutoffMs === undefined && text.includes(CUTOFF)) outcome.cutoffMs = now - sentAt
      if (outcome.firstDeltaMs === undefined && text.includes(DELTA)) outcome.firstDeltaMs = now - sentAt
    }
    if (!sawState && text.includes(STATE)) {
      sawState = true
      if (timed) outcome.stateMs = now - sentAt
    }
    if (!sawError && text.includes(ERROR)) sawError = true
    carry = text.slice(-CARRY)
  }
  outcome.totalMs = wallMs() - sentAt
  if (sawError) outcome.failure = 'error line in the stream'
  else if (!sawState) outcome.failure = 'stream ended without __state__'
  else outcome.ok = true
  return outcome
}

/** Sends one POST and reads the whole turn; network failures become a failed outcome, never a throw. */
export async function postTurn(
  url: string,
  headers: Record<string, string>,
  body: string,
  timed = false,
): Promise<TurnOutcome> {
  const sentAt = wallMs()
  try {
    const response = await fetch(url, { method: 'POST', headers, body })
    return await readTurn(response, sentAt, timed)
  } catch (error) {
    return {
      ok: false,
      failure: `network: ${(error as Error).message}`,
      lines: 0,
      bytes: 0,
      totalMs: wallMs() - sentAt,
    }
  }
}

/**
 * Reads an NDJSON body chunk by chunk: each line's arrival time, and a SHA-1 of every byte after the first line
 * (the `__cutoff__`, which differs between an original client and its joiners), whose text goes to `onFirstLine`.
 * The rejoin scenario's original client and its joiners share it, so their line counts and digests compare.
 */
export function lineRecorder(onFirstLine?: (line: string) => void) {
  const times: number[] = []
  const hasher = new Bun.CryptoHasher('sha1')
  const decoder = new TextDecoder()
  let head = ''
  let firstLineDone = false
  return {
    times,
    chunk(bytes: Uint8Array, now: number): void {
      let from = 0
      for (let newline = bytes.indexOf(10); newline >= 0; newline = bytes.indexOf(10, newline + 1)) {
        times.push(now)
        if (!firstLineDone) {
          firstLineDone = true
          from = newline + 1
          onFirstLine?.(head + decoder.decode(bytes.subarray(0, newline)))
        }
      }
      if (!firstLineDone) {
        if (onFirstLine) head += decoder.decode(bytes, { stream: true })
      } else if (from < bytes.byteLength) hasher.update(bytes.subarray(from))
    },
    digest: (): string => hasher.digest('hex'),
  }
}
