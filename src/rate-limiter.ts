import { LRUCache } from 'lru-cache'
import type { RateLimit } from '../lib/config'

interface Bucket {
  tokens: number
  updatedAt: number
}

/** How many keys' buckets are remembered. */
const REMEMBERED_KEYS = 100_000

/**
 * Token buckets, one per key (an API key, an embed session): `burst` requests at once, refilled at `perSecond`.
 * Only the most recent 100,000 keys are remembered; a forgotten key starts again with a full bucket, which errs
 * on the caller's side. The bound is a size of one per bucket rather than `max`: with `max`, the cache allocates
 * and fills all of its slots up front, which took 30 to 80 ms of every start for two limiters that hold a few
 * dozen keys on most servers.
 */
export class RateLimiter {
  private readonly buckets = new LRUCache<string | number, Bucket>({
    maxSize: REMEMBERED_KEYS,
    sizeCalculation: () => 1,
  })

  constructor(
    private readonly limit: RateLimit,
    private readonly clock: () => number = Date.now,
  ) {}

  get enabled(): boolean {
    return this.limit.perSecond > 0 && this.limit.burst > 0
  }

  /** Takes one token for `key`: 0 when the request may go on, else the seconds until a token is back (at least 1). */
  take(key: string | number): number {
    if (!this.enabled) return 0
    const now = this.clock()
    const bucket = this.buckets.get(key) ?? { tokens: this.limit.burst, updatedAt: now }
    // A clock set back (tests move theirs; so can NTP) refills nothing rather than draining the bucket.
    const elapsedMs = Math.max(0, now - bucket.updatedAt)
    bucket.tokens = Math.min(this.limit.burst, bucket.tokens + (elapsedMs / 1000) * this.limit.perSecond)
    bucket.updatedAt = now
    this.buckets.set(key, bucket)
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1
      return 0
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / this.limit.perSecond))
  }
}
