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

/** Sends every body at once (at `startAt`) and reports each turn: the overload scenario. */
export interface BurstJob {
  kind: 'burst'
  url: string
  headers: Record<string, string>
  bodies: string[]
  startAt: number
}

export interface BurstTurn {
  /** HTTP status (0: no response). */
  status: number
  /** A 200 stream that ended with `__state__`. */
  ok: boolean
  failure?: string
  /** From sending to the end of the response. */
  ms: number
}

export type WorkerJob = HoldJob | JoinJob | BurstJob
