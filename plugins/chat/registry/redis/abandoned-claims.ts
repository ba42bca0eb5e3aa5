import type { RedisLink } from '../../../../lib/redis-link'

/**
 * Claims of threads whose answer never came (Redis missed the deadline, or the connection dropped). Redis may still
 * run such a claim once it reads it, a stopped Redis when it resumes, leaving the thread held by a run that never
 * started. No node renews that lease, so the sweep would free the thread once it ends; but a client retrying the
 * same message meanwhile would join that run and wait for nothing. So each one's lease is ended as soon as Redis
 * answers again, and the next sweep frees the thread.
 */
export class AbandonedClaims {
  /** Each claim's record, with how many answers found no lease of it so far. */
  private readonly records = new Map<string, number>()

  constructor(
    private readonly commands: RedisLink,
    /** The sorted set of leases, scored by when each ends. */
    private readonly runs: string,
    /** Past this many, a claim is left to its lease's own end (a long outage must not grow memory without end). */
    private readonly limit = 10_000,
  ) {}

  get size(): number {
    return this.records.size
  }

  add(record: string): void {
    if (this.records.size < this.limit) this.records.set(record, 0)
  }

  /**
   * Ends the lease of every abandoned claim Redis has run (`XX`: one it never ran is not added). A claim is forgotten
   * once its lease is ended, or after three answers finding none: it never reached Redis. One answer is not proof,
   * since the claim may still wait, unread, on the dropped connection.
   */
  async end(): Promise<void> {
    if (this.records.size === 0) return
    const records = [...this.records]
    // Sent in one turn of the event loop: one write, however many.
    const answers = await Promise.all(
      records.map(([record]) => this.commands.send('ZADD', [this.runs, 'XX', 'CH', '0', record])),
    )
    records.forEach(([record, misses], index) => {
      if (answers[index] === 1 || misses >= 2) this.records.delete(record)
      else this.records.set(record, misses + 1)
    })
  }
}
