import type { RunKey } from '../run'
import type { QuotaSets } from './run-boundaries'

/** A lease record: which run holds the thread, on which node, and the API key it counts against. */
export interface LeaseRecord {
  runId: string
  node: string
  key: RunKey
  keyId?: number
}

/**
 * Where the shared runs live in Redis, under one prefix per deployment of the service: a thread's busy flag, a
 * message's run, the lease set, the runs per user and per key, each run's log, the flag that a reader elsewhere wants
 * a run. The scripts that mark a run wanted tell its node over the cluster bus's channel.
 */
export class RedisKeys {
  constructor(
    private readonly prefix: string,
    private readonly holdMs: number,
    /** The cluster bus's channel, where the lookup scripts tell a run's node that a reader elsewhere wants it. */
    private readonly events: string,
  ) {}

  thread(chatId: string): string {
    return `${this.prefix}thread:${chatId}`
  }

  /** The prefix of the thread keys, for scripts that look a run's thread up. */
  get threadPrefix(): string {
    return `${this.prefix}thread:`
  }

  message(key: Pick<RunKey, 'userId' | 'agentId' | 'messageId'>): string {
    return `${this.prefix}message:${key.userId}:${key.agentId}:${key.messageId}`
  }

  /** Set while a reader on another node wants a run's lines in Redis. */
  wanted(runId: string): string {
    return `${this.prefix}wanted:${runId}`
  }

  /** The arguments of the lookups that mark a run wanted. */
  get wantArgs(): string[] {
    return [`${this.prefix}wanted:`, String(this.holdMs), this.events]
  }

  log(runId: string): string {
    return `${this.prefix}log:${runId}`
  }

  /** The prefix of the sorted sets of runs per user and per API key, for the run limits of every node together. */
  get quota(): string {
    return `${this.prefix}quota:`
  }

  /**
   * The sets a run of `userId` (and of the API key `keyId`) counts in, named as the scripts' `quotas` names them from
   * its record; none for a run without limits.
   */
  quotaSets(limited: boolean, userId: number, keyId: number | undefined): QuotaSets {
    if (!limited) return { user: '', key: '' }
    return { user: `${this.quota}u:${userId}`, key: keyId === undefined ? '' : `${this.quota}k:${keyId}` }
  }

  /** The sorted set of live runs, scored by when their lease ends. */
  get runs(): string {
    return `${this.prefix}runs`
  }
}
