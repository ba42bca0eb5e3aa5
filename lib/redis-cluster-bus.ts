import type { ClusterBus, ClusterEvent, ClusterListener } from './cluster-bus'
import type { Logger } from './logger'
import { COMMAND_DEADLINE_MS, RedisLink } from './redis-link'
import { randomToken } from './secrets'

export interface RedisClusterBusOptions {
  /** `redis://` or `rediss://` URL. */
  url: string
  logger: Logger
  /** Prefix of the channel (the same as the run registry's keys), so several services (or tests) share one Redis. */
  prefix?: string
  /** How often a lost subscription is made again and events Redis did not take are sent again. */
  upkeepMs?: number
}

/** What goes over the channel: an event names the node it came `from`, which heard it already. */
type Message = ClusterEvent & { from?: string }

/**
 * The cluster bus over Redis pub/sub: one channel per service, one connection that publishes and one that listens. A
 * node hears its own events at once, not after a round trip through Redis (nor never, while Redis is down), so a
 * change it just made applies to its very next request; their echo from Redis is left unheard. News Redis does not
 * take waits and goes, in order, once it does (what it announces is stored already: a revocation is).
 */
export class RedisClusterBus implements ClusterBus {
  readonly shared = true
  readonly node = randomToken(8)
  /** The channel every node publishes on and listens to; the run registry's scripts in Redis publish on it too. */
  readonly channel: string
  private readonly publisher: RedisLink
  private readonly listener: RedisLink
  private readonly listeners = new Set<ClusterListener>()
  /** Events Redis did not take, oldest first: sent again by the upkeep. */
  private unsent: Message[] = []
  private subscribed: Promise<void> | undefined
  private everSubscribed = false
  private closed = false
  private readonly timer: ReturnType<typeof setInterval>

  constructor(private readonly options: RedisClusterBusOptions) {
    this.channel = `${options.prefix ?? 'acs:'}events`
    this.publisher = new RedisLink(options.url)
    // A lost subscription is made again by the next upkeep or readiness check.
    this.listener = new RedisLink(options.url, () => {
      this.subscribed = undefined
    })
    this.listen().catch((error: unknown) =>
      options.logger.warn('subscribing to cluster events in Redis failed; retrying', { error }),
    )
    let busy = false
    this.timer = setInterval(() => {
      if (busy || this.closed) return
      busy = true
      this.listen()
        .then(() => this.sendUnsent())
        .catch((error: unknown) => options.logger.warn('cluster bus upkeep in Redis failed', { error }))
        .finally(() => {
          busy = false
        })
    }, options.upkeepMs ?? 2500)
    this.timer.unref?.()
  }

  async publish(event: ClusterEvent): Promise<void> {
    for (const listener of this.listeners) listener(event)
    const message: Message = { ...event, from: this.node }
    try {
      await this.publisher.send('PUBLISH', [this.channel, JSON.stringify(message)])
    } catch (error) {
      // What it announces is stored already, so it still goes later; an abort that failed now is not sent later: the
      // request that asked for it fails (503), and its client asks again.
      const later = event.type !== 'abort'
      if (later && !this.unsent.some((unsent) => JSON.stringify(unsent) === JSON.stringify(message)))
        this.unsent.push(message)
      throw error
    }
  }

  subscribe(listener: ClusterListener): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  async check(): Promise<void> {
    const answer = await this.publisher.send('PING', [])
    if (answer !== 'PONG') throw new Error(`Redis answered PING with ${String(answer)}`)
    await withTimeout(this.listen(), COMMAND_DEADLINE_MS)
  }

  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    clearInterval(this.timer)
    // Commands are answered in order: once this one is, every event published before it is in Redis.
    if (this.publisher.client.connected) await this.publisher.send('PING', []).catch(() => {})
    this.publisher.close()
    this.listener.close()
    this.listeners.clear()
  }

  /** Publishes the events Redis did not take, oldest first; those it still does not take wait for the next upkeep. */
  private async sendUnsent(): Promise<void> {
    while (this.unsent.length > 0) {
      await this.publisher.send('PUBLISH', [this.channel, JSON.stringify(this.unsent[0])])
      this.unsent.shift()
    }
  }

  /** Subscribes to the channel once (again after a failed attempt or a lost connection). */
  private listen(): Promise<void> {
    this.subscribed ??= this.listener
      .connect()
      .then(() => this.listener.client.subscribe(this.channel, (message) => this.receive(message)))
      .then(
        () => {
          // Subscribed again after losing the subscription: revocations sent meanwhile never reached this node.
          if (this.everSubscribed) for (const listener of this.listeners) listener({ type: 'embed-sessions-recheck' })
          this.everSubscribed = true
        },
        (error: unknown) => {
          this.subscribed = undefined
          throw error
        },
      )
    return this.subscribed
  }

  private receive(text: string): void {
    let message: Message
    try {
      message = JSON.parse(text) as Message
    } catch {
      return
    }
    if (typeof message !== 'object' || message === null || message.from === this.node) return
    const { from: _, ...event } = message
    for (const listener of this.listeners) listener(event as ClusterEvent)
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Redis did not answer within ${ms} ms`)), ms)
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}
