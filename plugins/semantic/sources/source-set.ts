import { availableParallelism } from 'node:os'
import type { Logger } from '../../../lib/logger'
import { withCircuitBreaker, type CircuitBreakerOptions } from './circuit-breaker'
import { createDataSource } from './create-data-source'
import type { DataSource, DataSourceConfig, QueryOutput } from './data-source'
import type { Parameter } from './dialects/dialect'
import { FairScheduler } from './fair-scheduler'
import { QueryPool } from './query-pool'
import { createSqliteSource } from './sqlite-source'

export interface SourceSetOptions {
  logger: Logger
  /** Longest a SQLite query may run before its process is stopped. */
  queryTimeoutMs: number
  /** SQLite query processes (default: the machine's cores). */
  workers?: number
  /** How each source shares its places among accounts. */
  fairShare?: { perAccount?: number; queuePerAccount?: number }
  /** Each source's circuit breaker (defaults: 3 failures in a row, 30 s cool-down) and health check limit (0.8 s). */
  breaker?: Partial<Pick<CircuitBreakerOptions, 'failures' | 'coolDownMs' | 'healthTimeoutMs' | 'clock'>>
}

/**
 * Every data source of the server, each made once and kept: the configured ones by deployment, and the SQLite files
 * (the demo data, model folders' `data.db`) by path. Each sits behind its circuit breaker, and queries run in their
 * account's turn: one fair scheduler over the SQLite query processes, which every SQLite source shares, and one per
 * server source over its connections.
 */
export function createSourceSet(options: SourceSetOptions) {
  const workers = options.workers ?? availableParallelism()
  const pool = new QueryPool({ size: workers, timeoutMs: options.queryTimeoutMs })
  const sources = new Map<string, DataSource>()
  const scheduler = (capacity: number) =>
    new FairScheduler({
      capacity,
      perAccount: options.fairShare?.perAccount,
      queuePerAccount: options.fairShare?.queuePerAccount ?? 50,
    })
  const sqliteTurns = scheduler(workers)
  const turns = new Map<DataSource, FairScheduler>()
  const guarded = (source: DataSource, deploymentId?: number): DataSource =>
    withCircuitBreaker(source, {
      failures: options.breaker?.failures ?? 3,
      coolDownMs: options.breaker?.coolDownMs ?? 30_000,
      healthTimeoutMs: options.breaker?.healthTimeoutMs ?? 800,
      clock: options.breaker?.clock,
      logger: options.logger,
      deploymentId,
    })

  return {
    /** The configured source of a deployment, made at its first use. */
    configured(deploymentId: number, config: DataSourceConfig): DataSource {
      const key = `deployment:${deploymentId}`
      let source = sources.get(key)
      if (!source) {
        source = guarded(createDataSource(config, { pool, deploymentId }), deploymentId)
        sources.set(key, source)
        // Its connections are its places.
        if (source.type !== 'sqlite') turns.set(source, scheduler(config.maxConnections))
      }
      return source
    },

    /** The configured source of a deployment if it was made already. */
    madeFor(deploymentId: number): DataSource | undefined {
      return sources.get(`deployment:${deploymentId}`)
    },

    /** The source over a SQLite file, one per file. */
    file(path: string): DataSource {
      let source = sources.get(`sqlite:${path}`)
      if (!source) {
        source = guarded(createSqliteSource({ path, pool, queryTimeoutMs: options.queryTimeoutMs }))
        sources.set(`sqlite:${path}`, source)
      }
      return source
    },

    /** Runs a query on `source` in `account`'s turn: a burst of one account's queries waits behind its own. */
    query(source: DataSource, account: string, sql: string, params: Parameter[], maxRows: number) {
      const turn = source.type === 'sqlite' ? sqliteTurns : (turns.get(source) ?? sqliteTurns)
      return turn.run(account, (): Promise<QueryOutput> => source.query(sql, params, maxRows))
    },

    /** Queries waiting for their account's turn, over every source. */
    waiting(): number {
      let count = sqliteTurns.waiting
      for (const turn of turns.values()) count += turn.waiting
      return count
    },

    close(): void {
      pool.close()
      for (const source of sources.values()) void source.close().catch(() => {})
      sources.clear()
      turns.clear()
    },
  }
}

export type SourceSet = ReturnType<typeof createSourceSet>
