import { AppError } from '../../../lib/errors'

/** 429 for a run over a limit, with the seconds after which a retry is likely to be admitted. */
export class TooManyRunsError extends AppError {
  constructor(
    message: string,
    override readonly retryAfterSeconds: number,
  ) {
    super(429, 'TOO_MANY_RUNS', message)
  }
}

export interface RunLimits {
  maxRunsPerUser: number
  maxRunsPerKey: number
  maxActiveRuns: number
  runQueueSize: number
}

/** What the admission reports as it goes (metrics). */
export interface AdmissionObserver {
  /** The number of runs waiting for a place, after it changed. */
  waitingChanged?(waiting: number): void
  /** A run was refused, by the limit it hit. */
  refused?(limit: 'user' | 'key' | 'queue'): void
}

/** Whose a run is: its user, and the API key that asked for it (tokens have none). */
export interface RunOwner {
  userId: number
  keyId?: number
}

/** One admitted run's place: waiting in the queue, then executing, then released. */
export interface RunTicket {
  /**
   * Resolves once the run may execute, or at once when `signal` aborts while it waits (the run then ends as aborted
   * without having used a place).
   */
  wait(signal: AbortSignal): Promise<void>
  /** Gives the place back (any number of calls; the first counts). */
  release(): void
}

type State = 'queued' | 'active' | 'released'

class Ticket implements RunTicket {
  state: State = 'queued'
  startedAt = 0
  private grant: (() => void) | undefined
  private granted = false

  constructor(
    readonly owner: RunOwner,
    private readonly admission: RunAdmission,
  ) {}

  wait(signal: AbortSignal): Promise<void> {
    if (this.granted || this.state !== 'queued') return Promise.resolve()
    if (signal.aborted) {
      this.release()
      return Promise.resolve()
    }
    return new Promise<void>((resolve) => {
      const onAbort = () => {
        this.grant = undefined
        this.release()
        resolve()
      }
      signal.addEventListener('abort', onAbort, { once: true })
      this.grant = () => {
        signal.removeEventListener('abort', onAbort)
        resolve()
      }
    })
  }

  /** Called by the admission when the run gets its place. */
  start(at: number): void {
    this.state = 'active'
    this.startedAt = at
    this.granted = true
    const grant = this.grant
    this.grant = undefined
    grant?.()
  }

  release(): void {
    this.admission.release(this)
  }
}

/**
 * Admission control for chat runs. A run counts against its user and its API key from admission until it ends,
 * waiting or executing; a request over either limit, or arriving when the server-wide queue is full, is refused
 * with `TooManyRunsError` before anything is stored. At most `maxActiveRuns` execute at once and the others wait
 * in the order they came: under overload, runs finish in the order they started instead of all sharing the
 * machine until every one of them is too slow. Joining a run is not a run and never comes here.
 */
export class RunAdmission {
  private readonly perUser = new Map<number, number>()
  private readonly perKey = new Map<number, number>()
  /** Waiting tickets in arrival order; released ones are skipped when their turn comes. */
  private queue: Ticket[] = []
  private queueHead = 0
  private waitingCount = 0
  private activeCount = 0
  /** Moving average of how long an executing run takes, for `Retry-After`. */
  private averageRunMs = 1000

  constructor(
    readonly limits: RunLimits,
    private readonly observer: AdmissionObserver = {},
    private readonly now: () => number = () => performance.now(),
  ) {}

  get active(): number {
    return this.activeCount
  }

  get waiting(): number {
    return this.waitingCount
  }

  /** Admits a run (executing at once or queued) or throws `TooManyRunsError`. */
  admit(owner: RunOwner): RunTicket {
    const { limits } = this
    if ((this.perUser.get(owner.userId) ?? 0) >= limits.maxRunsPerUser) throw this.overLimit('user')
    if (owner.keyId !== undefined && (this.perKey.get(owner.keyId) ?? 0) >= limits.maxRunsPerKey)
      throw this.overLimit('key')
    const startsNow = this.activeCount < limits.maxActiveRuns && this.waitingCount === 0
    if (!startsNow && this.waitingCount >= limits.runQueueSize)
      throw this.refuse(
        'queue',
        'The server is busy: too many runs are waiting; please retry later',
        this.retryAfter(1 + this.waitingCount / limits.maxActiveRuns),
      )
    const ticket = new Ticket(owner, this)
    this.perUser.set(owner.userId, (this.perUser.get(owner.userId) ?? 0) + 1)
    if (owner.keyId !== undefined) this.perKey.set(owner.keyId, (this.perKey.get(owner.keyId) ?? 0) + 1)
    if (startsNow) {
      this.activeCount++
      ticket.start(this.now())
    } else {
      this.queue.push(ticket)
      this.waitingCount++
      this.observer.waitingChanged?.(this.waitingCount)
    }
    return ticket
  }

  /** @internal Called through `RunTicket.release`. */
  release(ticket: Ticket): void {
    if (ticket.state === 'released') return
    const was = ticket.state
    ticket.state = 'released'
    decrement(this.perUser, ticket.owner.userId)
    if (ticket.owner.keyId !== undefined) decrement(this.perKey, ticket.owner.keyId)
    if (was === 'queued') {
      this.waitingCount--
      this.observer.waitingChanged?.(this.waitingCount)
      return
    }
    this.activeCount--
    this.averageRunMs += (this.now() - ticket.startedAt - this.averageRunMs) / 8
    this.startWaiting()
  }

  private startWaiting(): void {
    const waiting = this.waitingCount
    while (this.activeCount < this.limits.maxActiveRuns && this.queueHead < this.queue.length) {
      const next = this.queue[this.queueHead++]
      if (next.state !== 'queued') continue
      this.waitingCount--
      this.activeCount++
      next.start(this.now())
    }
    if (this.waitingCount !== waiting) this.observer.waitingChanged?.(this.waitingCount)
    // Drop the consumed head now and then rather than shifting the array on every start.
    if (this.queueHead > 1024 && this.queueHead * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.queueHead)
      this.queueHead = 0
    }
  }

  /**
   * The refusal of a run over the user's or the key's limit: found here, or by a registry shared between nodes that
   * counts the runs of every node.
   */
  overLimit(limit: 'user' | 'key'): TooManyRunsError {
    const most = limit === 'user' ? this.limits.maxRunsPerUser : this.limits.maxRunsPerKey
    const whose = limit === 'user' ? 'this user' : 'this API key'
    return this.refuse(
      limit,
      `Too many runs for ${whose}: at most ${most} at once; retry when one has finished`,
      this.retryAfter(1),
    )
  }

  private refuse(limit: 'user' | 'key' | 'queue', message: string, retryAfterSeconds: number): TooManyRunsError {
    this.observer.refused?.(limit)
    return new TooManyRunsError(message, retryAfterSeconds)
  }

  /** Seconds until about `runs` average runs have finished: at least 1, at most 60. */
  private retryAfter(runs: number): number {
    return Math.min(60, Math.max(1, Math.ceil((runs * this.averageRunMs) / 1000)))
  }
}

function decrement(counts: Map<number, number>, key: number): void {
  const count = (counts.get(key) ?? 0) - 1
  if (count <= 0) counts.delete(key)
  else counts.set(key, count)
}
