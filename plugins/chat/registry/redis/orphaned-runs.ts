import type { Storage } from '../../../../db/client'
import type { Logger } from '../../../../lib/logger'
import { markRunInterrupted, NODE_LOST_MESSAGE, runningRuns, storedRunLines } from '../interrupted-runs'
import { encodeLine, errorLine } from '../../stream/lines'
import type { LeaseRecord, RedisKeys } from './redis-keys'
import type { RedisLink } from '../../../../lib/redis-link'
import { END_ORPHAN } from './redis-scripts'

export interface OrphanedRunsOptions {
  commands: RedisLink
  keys: RedisKeys
  storage: Storage
  logger: Logger
  clock: () => number
  retainMs: number
  /** Whether this node executes the run (its lease is its own to renew). */
  runsHere(runId: string): boolean
}

const interruptedLine = `${encodeLine(errorLine(NODE_LOST_MESSAGE)).json}\n`

/**
 * Runs whose node is gone, ended by another node in its place: marked in storage first, then their logs ended and
 * their threads freed, so the next turn on a thread finds its answer stored as interrupted.
 */
export class OrphanedRuns {
  /** Runs found running in storage without a lease at the last look (see `interruptUnleased`). */
  private unleased = new Set<string>()

  constructor(private readonly options: OrphanedRunsOptions) {}

  /**
   * Ends the run of `record` in its node's place (the node stopped, or did not answer an abort): marks it in storage,
   * then ends its log with `message`, after the run's stored lines if its node never sent any (so a reader that joins
   * it now gets what its own clients got), and frees its thread.
   */
  async end(record: string, message: string, status: 'interrupted' | 'aborted' = 'interrupted'): Promise<void> {
    const { storage, logger, keys } = this.options
    const { runId, key } = JSON.parse(record) as LeaseRecord
    await markRunInterrupted(storage, runId, this.options.clock(), { error: message, status }).catch((error: unknown) =>
      logger.warn('marking a run interrupted failed', { runId, error }),
    )
    const replay = await storedRunLines(storage, key.chatId, runId).catch(() => '')
    await this.options.commands.send('EVAL', [
      END_ORPHAN,
      '3',
      keys.log(runId),
      keys.message(key),
      keys.thread(key.chatId),
      `${encodeLine(errorLine(message)).json}\n`,
      record,
      String(this.options.retainMs),
      replay,
    ])
  }

  /**
   * Runs storage holds as running that no lease names, seen so twice in a row a lease apart (a live node takes a
   * lost lease again within a third of one): their node died while Redis lost its data (a restart), so no lease
   * expired to tell. They are interrupted as at a node's start.
   */
  async interruptUnleased(): Promise<void> {
    const { storage, logger, keys } = this.options
    const unleased = new Set<string>()
    for (const { id, threadId } of await this.runsNoLeaseNames()) {
      unleased.add(id)
      if (!this.unleased.has(id)) continue
      logger.warn('interrupting a run no node holds', { runId: id, chatId: threadId })
      await markRunInterrupted(storage, id, this.options.clock())
      await this.options.commands.send('EVAL', [
        END_ORPHAN,
        '3',
        keys.log(id),
        // No record: its keys (gone with Redis's data) are left alone; a reader still following the log is ended.
        keys.thread(threadId),
        keys.thread(threadId),
        interruptedLine,
        '',
        String(this.options.retainMs),
        '',
      ])
    }
    this.unleased = unleased
  }

  /**
   * Runs left `running` in storage with no live lease (every node stopped, or Redis lost its data) are
   * interrupted: the start-up recovery of a single process, limited to runs no node holds.
   */
  async recoverAtStart(): Promise<void> {
    const { storage, logger } = this.options
    try {
      let recovered = 0
      for (const { id } of await this.runsNoLeaseNames())
        if (await markRunInterrupted(storage, id, this.options.clock())) recovered++
      if (recovered > 0) logger.warn('marked runs no node holds as interrupted', { runs: recovered })
    } catch (error) {
      logger.warn('recovering interrupted runs failed', { error })
    }
  }

  /** The runs storage holds as running, not on this node, whose thread no lease of theirs holds (one round trip). */
  private async runsNoLeaseNames(): Promise<Array<{ id: string; threadId: string }>> {
    const running = (await runningRuns(this.options.storage)).filter(({ id }) => !this.options.runsHere(id))
    if (running.length === 0) return []
    const records = (await this.options.commands.send(
      'MGET',
      running.map(({ threadId }) => this.options.keys.thread(threadId)),
    )) as Array<string | null>
    return running.filter(({ id }, position) => {
      const record = records[position]
      return !record || (JSON.parse(record) as LeaseRecord).runId !== id
    })
  }
}
