import type { Storage } from '../../../../db/client'
import type { Logger } from '../../../../lib/logger'
import { randomToken } from '../../../../lib/secrets'
import { NODE_LOST_MESSAGE, runHasEnded } from '../interrupted-runs'
import { RedisKeys, type LeaseRecord } from './redis-keys'
import { OrphanedRuns } from './orphaned-runs'
import { OwnedRun, type RunShipping } from './owned-run'
import { AbandonedClaims } from './abandoned-claims'
import { RunBoundaries, type Claim } from './run-boundaries'
import type { ClusterEvent } from '../../../../lib/cluster-bus'
import type { RedisClusterBus } from '../../../../lib/redis-cluster-bus'
import { RedisLink } from '../../../../lib/redis-link'
import { CLAIM_EXPIRED, CLAIM_ONE, FIND_BY_MESSAGE, FIND_BY_THREAD, RENEW } from './redis-scripts'
import { StreamFollower } from '../../stream/redis-stream-follower'
import { LEASE_LOST_MESSAGE, Run } from '../run'
import {
  whenIdle,
  type RunRegistry,
  type RunStart,
  RunLimitReached,
  RunRegistryUnavailableError,
} from '../run-registry'

export interface RedisRunRegistryOptions {
  /** `redis://` or `rediss://` URL. */
  url: string
  /** The node's cluster bus: aborts go to a run's node over it, and a wanted run's node hears of it there. */
  bus: RedisClusterBus
  storage: Storage
  logger: Logger
  clock: () => number
  /** Prefix of every key and channel, so several services (or tests) can share one Redis. */
  prefix?: string
  /** How long a node's hold on a thread lasts without renewal: a dead node's runs are interrupted after about this. */
  leaseMs?: number
  /** How long the log of a finished run stays readable. */
  retainMs?: number
}

/** How much longer than the time between renewals an abort waits for a sign of life from the run's node. */
const ABORT_MARGIN_MS = 500

/**
 * The run registry shared by every node through Redis. A run executes on the node that started it, in memory as
 * with one process; once a reader on another node wants it, its published lines also go to a Redis stream (the
 * lines so far in one `XADD`, then one per publication: a burst of lines is one entry), which that reader follows.
 * Runs nobody follows, most of them, never write their lines to Redis. A thread's busy flag and a run's owner are one lease (`SET NX
 * PX`), renewed by the owner while the run lives and released when it ends; a node that finds an expired lease marks
 * its run interrupted and ends its stream. Aborts, and the news that a run is wanted, reach its node over the cluster
 * bus.
 */
export class RedisRunRegistry implements RunRegistry {
  readonly shared = true
  readonly node = randomToken(8)
  private readonly commands: RedisLink
  private readonly reader: RedisLink
  private readonly follower: StreamFollower
  /** Claims whose answer never came: ended as soon as Redis answers again. */
  private readonly abandoned: AbandonedClaims
  /** The claims and releases of this node's runs, gathered into script calls. */
  private readonly boundaries: RunBoundaries
  private readonly local = new Map<string, OwnedRun>()
  private readonly byRunId = new Map<string, OwnedRun>()
  private readonly idle = new Set<() => void>()
  private readonly stopListening: () => void
  private readonly keys: RedisKeys
  private readonly leaseMs: number
  /** How long the thread and message keys outlive their last renewal (the lease is the sorted set's score). */
  private readonly holdMs: number
  private readonly retainMs: number
  private readonly timers: Array<ReturnType<typeof setInterval>> = []
  private closed = false
  private sweeps = 0
  /** How often this node renews its leases (every node alike). */
  private get renewalMs(): number {
    return Math.max(10, Math.floor(this.leaseMs / 3))
  }
  /** Ended runs whose release Redis did not take: sent again by the upkeep (their threads stay busy until then). */
  private readonly unreleased = new Set<OwnedRun>()
  private readonly orphans: OrphanedRuns
  private readonly shipping: RunShipping

  constructor(private readonly options: RedisRunRegistryOptions) {
    this.leaseMs = options.leaseMs ?? 10_000
    // Past the lease, the sweep (every quarter lease) has time to mark the run interrupted before the keys expire;
    // they expire by themselves if no node is left to sweep.
    this.holdMs = 2 * this.leaseMs
    this.keys = new RedisKeys(options.prefix ?? 'acs:', this.holdMs, options.bus.channel)
    this.retainMs = options.retainMs ?? 5 * 60_000
    // Back after an outage, Redis may have lost its data: the leases of this node's runs are taken again at once,
    // not at the next renewal, so a reader that comes meanwhile still finds them.
    this.commands = new RedisLink(options.url, undefined, () => {
      if (!this.closed) void this.renew().catch(() => {})
    })
    this.reader = new RedisLink(options.url)
    this.follower = new StreamFollower(this.reader, this.commands, options.logger)
    this.abandoned = new AbandonedClaims(this.commands, this.keys.runs)
    this.boundaries = new RunBoundaries({
      commands: this.commands,
      runs: this.keys.runs,
      leaseMs: this.leaseMs,
      holdMs: this.holdMs,
    })
    this.shipping = {
      boundaries: this.boundaries,
      commands: this.commands,
      keys: this.keys,
      logger: options.logger,
      logMs: this.leaseMs + this.retainMs,
      retainMs: this.retainMs,
      unreleased: this.unreleased,
    }
    this.orphans = new OrphanedRuns({
      commands: this.commands,
      keys: this.keys,
      storage: options.storage,
      logger: options.logger,
      clock: options.clock,
      retainMs: this.retainMs,
      runsHere: (runId) => this.byRunId.has(runId),
    })
    this.stopListening = options.bus.subscribe((event) => this.receive(event))
    // Renewed three times per lease, so one late renewal does not lose it; swept four times per lease.
    this.every(this.renewalMs, () => this.renew())
    this.every(Math.max(10, Math.floor(this.leaseMs / 4)), async () => {
      for (const owned of this.unreleased) {
        this.unreleased.delete(owned)
        owned.ship(true)
      }
      await this.sweep()
    })
    void this.orphans.recoverAtStart()
  }

  get size(): number {
    return this.local.size
  }

  get readerCount(): number {
    let total = 0
    for (const owned of this.local.values()) total += owned.run.readerCount
    return total
  }

  async forChat(chatId: string): Promise<Run | undefined> {
    const owned = this.local.get(chatId)
    if (owned) return owned.run
    const record = (await this.call('EVAL', [FIND_BY_THREAD, '1', this.keys.thread(chatId), ...this.keys.wantArgs])) as
      string | null
    if (!record) return undefined
    // Over in storage, though its node has yet to release the thread: the thread is free and reads as stored.
    if (await runHasEnded(this.options.storage, (JSON.parse(record) as LeaseRecord).runId)) return undefined
    return this.followed(record)
  }

  async forMessage(userId: number, agentId: number, messageId: string): Promise<Run | undefined> {
    const record = (await this.call('EVAL', [
      FIND_BY_MESSAGE,
      '1',
      this.keys.message({ userId, agentId, messageId }),
      ...this.keys.wantArgs,
      this.keys.threadPrefix,
    ])) as string | null
    if (!record) return undefined
    const parsed = JSON.parse(record) as LeaseRecord
    const local = this.byRunId.get(parsed.runId)?.run
    if (local) return local
    // Over in storage, though its node has yet to release the message (a release waits for its turn of the event
    // loop): the answer reads as stored, as `forChat` reads the thread, not as a run to replay.
    if (await runHasEnded(this.options.storage, parsed.runId)) return undefined
    return this.followed(record)
  }

  async start(start: RunStart): Promise<Run | undefined> {
    if (this.local.has(start.chatId)) return undefined
    const { runId, clientMessageId, limits, ...key } = start
    const record = JSON.stringify({ runId, node: this.node, key, keyId: limits?.keyId } satisfies LeaseRecord)
    const sets = this.keys.quotaSets(limits !== undefined, key.userId, limits?.keyId)
    const claim: Claim = {
      thread: this.keys.thread(key.chatId),
      message: this.keys.message(key),
      record,
      runId,
      clientMessageId: clientMessageId === true,
      sets,
      mostPerUser: limits?.maxRunsPerUser ?? 0,
      mostPerKey: limits?.maxRunsPerKey ?? 0,
    }
    let claimed = await this.claim(record, this.boundaries.claim(claim))
    if (claimed === 0)
      claimed = await this.takeOverEnded(key.chatId, record, (holder) =>
        this.boundaries.takeOver(claim, limits ? this.keys.quota : '', holder),
      )
    if (claimed === -1 || claimed === -2) throw new RunLimitReached(claimed === -1 ? 'user' : 'key')
    if (claimed !== 1) return undefined
    const owned = new OwnedRun(new Run(key), runId, record, sets, this.shipping)
    this.local.set(key.chatId, owned)
    this.byRunId.set(runId, owned)
    return owned.run
  }

  /**
   * Claims a thread whose holder has already ended in storage and only its node's release is still on its way: the
   * holder's client got the last line first, and its next message may reach this node before that release does. The
   * release may also land between the failed claim and this look at the holder: the thread is then free to claim.
   */
  private async takeOverEnded(
    chatId: string,
    record: string,
    takeOver: (holder: string) => Promise<unknown>,
  ): Promise<unknown> {
    const holder = (await this.call('GET', [this.keys.thread(chatId)])) as string | null
    if (holder && !(await runHasEnded(this.options.storage, (JSON.parse(holder) as LeaseRecord).runId))) return 0
    return this.claim(record, takeOver(holder ?? ''))
  }

  end(run: Run): void {
    run.finish()
    const owned = this.local.get(run.key.chatId)
    if (owned?.run !== run) return
    this.local.delete(run.key.chatId)
    this.byRunId.delete(owned.runId)
    if (this.local.size === 0) for (const resolve of this.idle) resolve()
  }

  async abort(chatId: string, reason: string): Promise<boolean> {
    const owned = this.local.get(chatId)
    if (owned) {
      owned.run.abort(reason)
      return true
    }
    const record = (await this.call('GET', [this.keys.thread(chatId)])) as string | null
    if (!record) return false
    const { runId } = JSON.parse(record) as LeaseRecord
    await this.publishAbort(runId, reason)
    // Its node frees the thread within moments. One that does not and has not renewed the lease for longer than
    // its renewals are apart has died (its lease has yet to run out): the run is ended here in its place, so the
    // thread takes a new message now, as after any abort. A node that renews is alive and slow: it is told again
    // (the news may have been lost) and left to end the run itself.
    const leaseEnd = async () => Number((await this.call('ZSCORE', [this.keys.runs, record])) ?? 0)
    const renewedAt = await leaseEnd()
    const deadline = performance.now() + this.renewalMs + ABORT_MARGIN_MS
    while (performance.now() < deadline) {
      await Bun.sleep(25)
      if ((await this.call('GET', [this.keys.thread(chatId)])) !== record) return true
    }
    if ((await leaseEnd()) !== renewedAt) {
      await this.publishAbort(runId, reason)
      return true
    }
    if ((await this.call('EVAL', [CLAIM_ONE, '1', this.keys.runs, record, this.keys.quota])) === 1) {
      this.options.logger.warn('ending an aborted run whose node did not answer', { runId, chatId })
      await this.orphans.end(record, reason, 'aborted')
    }
    return true
  }

  abortAll(reason: string): void {
    for (const owned of this.local.values()) owned.run.abort(reason)
  }

  whenIdle(timeoutMs: number): Promise<void> {
    return whenIdle(this.idle, () => this.local.size, timeoutMs)
  }

  async check(): Promise<void> {
    const answer = await this.commands.send('PING', [])
    if (answer !== 'PONG') throw new Error(`Redis answered PING with ${String(answer)}`)
    // Aborts and wanted runs travel over the bus: the registry is not ready while the bus is not.
    await this.options.bus.check()
  }

  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    this.stopListening()
    for (const timer of this.timers) clearInterval(timer)
    this.follower.close()
    // The releases (and claims) still gathering for this turn of the event loop leave now. Commands are answered in
    // order: once the PING is, every line and release sent before it is in Redis. Not waited for long when Redis is
    // down or does not answer.
    this.boundaries.flush()
    if (this.commands.client.connected) await this.commands.send('PING', []).catch(() => {})
    this.commands.close()
    this.reader.close()
  }

  private followed(record: string): Run {
    const { runId, key } = JSON.parse(record) as LeaseRecord
    const local = this.byRunId.get(runId)
    if (local) return local.run
    return this.follower.runOf(key, runId, this.keys.log(runId))
  }

  /** Aborts and wanted runs of this node, from the bus (the bus's other news is for other areas). */
  private receive(event: ClusterEvent): void {
    if (event.type === 'abort') this.byRunId.get(event.runId)?.run.abort(event.reason)
    else if (event.type === 'ship') this.byRunId.get(event.runId)?.want()
  }

  /** Tells the node that runs `runId` to stop it; 503 while Redis does not answer. */
  private async publishAbort(runId: string, reason: string): Promise<void> {
    try {
      await this.options.bus.publish({ type: 'abort', runId, reason })
    } catch (error) {
      this.options.logger.warn('Redis command failed', {
        command: 'PUBLISH',
        error: (error as Error)?.message ?? String(error),
      })
      throw new RunRegistryUnavailableError()
    }
  }

  /** Extends the leases of this node's runs; a run whose lease another node already took stops. */
  private async renew(): Promise<void> {
    if (this.local.size === 0) return
    const runs = [...this.local.values()]
    const keys = [this.keys.runs]
    for (const { run, runId } of runs)
      keys.push(
        this.keys.thread(run.key.chatId),
        this.keys.message(run.key),
        this.keys.log(runId),
        this.keys.wanted(runId),
      )
    const [lost, wanted, restored] = (await this.commands.send('EVAL', [
      RENEW,
      String(keys.length),
      ...keys,
      String(this.leaseMs),
      String(this.leaseMs + this.retainMs),
      String(this.holdMs),
      this.keys.quota,
      ...runs.map((owned) => owned.record),
    ])) as [number[], number[], number[]]
    // Taken again after Redis lost its data: a log that was being sent is sent again from its start.
    for (const position of restored) {
      const owned = runs[position - 1]
      // Taken again only while storage still holds it as running: one another node ended (its log since expired,
      // or its ending never reached Redis) stops here, as a lost lease does.
      if (await runHasEnded(this.options.storage, owned.runId).catch(() => false)) {
        owned.run.fence(LEASE_LOST_MESSAGE)
        continue
      }
      this.options.logger.warn('Redis had lost the lease of a running run; taken again', { runId: owned.runId })
      owned.shipped = 0
      owned.acked = 0
      owned.logStarted = false
      if (owned.wanted) owned.ship(false)
    }
    // A wanted run whose news was lost (pub/sub is at most once) starts sending its lines now.
    for (const position of wanted) runs[position - 1].want()
    for (const position of lost) {
      const owned = runs[position - 1]
      // Fenced, not only aborted: it writes nothing more (not even its end), the node that took the lease marks it.
      this.options.logger.warn('a run lost its lease to another node; it stops', { runId: owned.runId })
      owned.run.fence(LEASE_LOST_MESSAGE)
    }
  }

  /** Takes runs whose node stopped renewing their lease and marks them interrupted, in storage and in their log. */
  private async sweep(): Promise<void> {
    await this.abandoned.end()
    const claimed = (await this.commands.send('EVAL', [
      CLAIM_EXPIRED,
      '1',
      this.keys.runs,
      '100',
      this.keys.quota,
    ])) as string[]
    for (const record of claimed) {
      const { runId, key } = JSON.parse(record) as LeaseRecord
      this.options.logger.warn('interrupting a run whose node stopped', { runId, chatId: key.chatId })
      await this.orphans.end(record, NODE_LOST_MESSAGE)
    }
    if (++this.sweeps % 4 === 0) await this.orphans.interruptUnleased()
  }

  private every(periodMs: number, work: () => Promise<void>): void {
    let busy = false
    const timer = setInterval(() => {
      if (busy || this.closed) return
      busy = true
      work()
        .catch((error: unknown) => this.options.logger.warn('run registry upkeep in Redis failed', { error }))
        .finally(() => {
          busy = false
        })
    }, periodMs)
    timer.unref?.()
    this.timers.push(timer)
  }

  /**
   * A claim of a thread (`CLAIM` or `TAKE_OVER`) on a request's path. Without an answer it may still be made once
   * Redis reads it: its lease is then ended, so the thread does not stay held by a run that never started. A Redis
   * failure becomes 503, not 500.
   */
  private async claim(record: string, made: Promise<unknown>): Promise<unknown> {
    try {
      return await made
    } catch (error) {
      this.abandoned.add(record)
      if (error instanceof RunRegistryUnavailableError) throw error
      return this.unavailable('EVAL', error)
    }
  }

  /** A command on a request's path: a Redis failure (no answer within the deadline too) becomes 503, not 500. */
  private async call(command: string, args: string[]): Promise<unknown> {
    try {
      return await this.commands.send(command, args)
    } catch (error) {
      return this.unavailable(command, error)
    }
  }

  /** Logs a failed command and answers its request 503. */
  private unavailable(command: string, error: unknown): never {
    this.options.logger.warn('Redis command failed', { command, error: (error as Error)?.message ?? String(error) })
    throw new RunRegistryUnavailableError()
  }
}
