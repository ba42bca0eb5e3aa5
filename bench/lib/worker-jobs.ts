/** Jobs of the client worker processes and what they report. */

export interface HoldJob {
  kind: 'hold'
  url: string
  headers: Record<string, string>
  /** Streams of this worker: global indexes offset .. offset + count - 1 of `total`, started `rampMs / total` apart. */
  offset: number
  count: number
  total: number
  startAt: number
  rampMs: number
  users: number
  userPrefix: string
  messageIdBase: string
}

export interface HoldResult {
  completed: number
  failures: number
  failureSamples: string[]
  maxMs: number
}

export interface JoinJob {
  kind: 'join'
  url: string
  headers: Record<string, string>
  body: string
  count: number
  /** Joiners arrive evenly over `spreadMs` from `startAt` (wall-clock milliseconds). */
  startAt: number
  spreadMs: number
}

export interface JoinerResult {
  ok: boolean
  failure?: string
  /** Wall-clock arrival of each line, in order. */
  times: number[]
  /** SHA-1 of the bytes after the joiner's own `__cutoff__` line. */
  digest: string
}

export type WorkerJob = HoldJob | JoinJob
