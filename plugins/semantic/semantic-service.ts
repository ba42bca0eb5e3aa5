import { LRUCache } from 'lru-cache'
import type { Metrics } from '../../lib/metrics'
import type { Config } from '../../lib/config'
import { columnTitleOf } from './column-titles'
import { createModelLoader, type DeploymentRef, type LoadedModel } from './deployment-models'
import type { Logger } from '../../lib/logger'
import type { UserAccess } from '../auth/user-provisioner'
import { accessView } from './semantic-model/access-policy'
import { cacheKey } from './cache-key'
import type { DemoDataFile } from './demo/demo-data-file'
import { InvalidQueryError } from './errors'
import { buildMeta } from './meta'
import { ROW_CAP, type MetaResult, type SqlResult } from './model'
import { compileQuery } from './compile/query-compiler'
import { parseQuery } from './query/query-parser'
import { planQuery } from './query/query-planner'
import { formatAverage, formatValue } from './compile/result-format'
import {
  QueryExecutionError,
  redact,
  type DataSource,
  type DataSourceConfig,
  type SourceHealth,
} from './sources/data-source'
import type { CircuitBreakerOptions } from './sources/circuit-breaker'
import { createSourceSet, type SourceSet } from './sources/source-set'
import type { SemanticModel } from './semantic-model/semantic-model'

/** What the semantic layer needs to know of a deployment, defined beside the loader of its models. */
export type { DeploymentRef }

/** Whose data, on which deployment and branch. `access.userId` null reads the whole model, policies bypassed. */
export interface SemanticContext {
  deployment: DeploymentRef
  branchName?: string
  access: UserAccess
}

/** The access of a caller that names no user (an API key without `sessionSettings`). */
export const WHOLE_MODEL: UserAccess = Object.freeze({
  userId: null,
  groups: [],
  userAttributes: {},
  securityContext: {},
})

export interface SemanticServiceOptions {
  config: Pick<Config, 'dbPath' | 'demoDataPath'>
  logger: Logger
  /** Longest a query may run before its worker is stopped. */
  queryTimeoutMs?: number
  /** SQLite query processes (default: the machine's cores). */
  workers?: number
  /** How each source shares its places among accounts (`QUERIES_PER_ACCOUNT`, `QUERY_QUEUE_PER_ACCOUNT`). */
  fairShare?: { perAccount?: number; queuePerAccount?: number }
  cacheEntries?: number
  /**
   * How long an answer is kept when its source cannot tell whether its data changed (a database server, DuckDB);
   * default 10 s. Answers over a SQLite file are kept until the file changes (at most 10 minutes).
   */
  unstampedCacheMs?: number
  /** Where queries are counted and timed, by how the caches answered them. */
  metrics?: Pick<Metrics, 'semanticQueries' | 'semanticQueryDuration'>
  /** The data source of each deployment that names one (the bootstrap file's `dataSource`, resolved). */
  dataSources?: ReadonlyMap<number, DataSourceConfig>
  /** Each source's circuit breaker (defaults: 3 failures in a row, 30 s cool-down) and health check limit (0.8 s). */
  breaker?: Partial<Pick<CircuitBreakerOptions, 'failures' | 'coolDownMs' | 'healthTimeoutMs' | 'clock'>>
}

/** How a query was answered: from a cache, by joining the same query running for another caller, or by running it. */
type CacheUse = 'hit' | 'shared' | 'miss'

/** The rows of one compiled query over one data file: the part of an answer any caller asking it may share. */
interface QueryRows {
  data: SqlResult['data']
  totalRows: number
  /** When the database computed them (epoch ms). */
  computedAt: number
}

/**
 * The semantic layer of every deployment: models loaded once per model and branch, the demo data, a pool of
 * query workers with a time limit, and two caches. Rows are cached (and shared while a query runs) by the data
 * file, the compiled SQL and its parameters, which carry the caller's row rules; column names never come from
 * there, since two queries differing only in their aliases compile to the same SQL. Whole answers are cached by
 * everything that shapes them: deployment, model and branch, data, the caller's access and the query text.
 */
export function createSemanticService(options: SemanticServiceOptions) {
  const { logger } = options
  const set = createSourceSet({
    logger,
    queryTimeoutMs: options.queryTimeoutMs ?? 15_000,
    workers: options.workers,
    fairShare: options.fairShare,
    breaker: options.breaker,
  })
  const { load, loadAtStart, demoData, demoPath, demoFileMade } = createModelLoader(options)
  const entries = { max: options.cacheEntries ?? 500, ttl: 10 * 60_000 }
  const answers = new LRUCache<string, { result: SqlResult; computedAt: number }>(entries)
  const rows = createRowReader(set, logger, entries)
  const counted = (result: SqlResult, cacheUse: CacheUse, startedAt: number): SqlResult => {
    options.metrics?.semanticQueries.inc({ cache: cacheUse, outcome: 'ok' })
    options.metrics?.semanticQueryDuration.observe({ cache: cacheUse }, (performance.now() - startedAt) / 1000)
    return result
  }
  const failed = (error: unknown, cacheUse: CacheUse): never => {
    options.metrics?.semanticQueries.inc({ cache: cacheUse, outcome: 'error' })
    throw error
  }

  /** The SQLite file each deployment without a configured source reads on its default branch (known from `prepare`). */
  const fileSources = new Map<number, string>()

  /**
   * The deployment's configured source, else a SQLite file (its model folder's `data.db` or the demo data), and
   * the data version cache keys carry: results of another source, file or generation never match, nor results
   * from before the source's data changed. A source that cannot tell has its answers kept only briefly.
   */
  function sourceOf(deployment: DeploymentRef, loaded: LoadedModel): ReadSource {
    const config = options.dataSources?.get(deployment.id)
    // The built-in demo data is the service's own, made once for its version.
    if (!config && loaded.dataPath === demoPath) return { source: set.file(demoPath), dataVersion: loaded.dataVersion }
    const source = config ? set.configured(deployment.id, config) : set.file(loaded.dataPath)
    const where = config ? `deployment:${deployment.id}` : loaded.dataVersion
    const stamp = source.dataStamp()
    return stamp === undefined
      ? { source, dataVersion: where, keepMs: options.unstampedCacheMs ?? 10_000 }
      : { source, dataVersion: `${where}:${stamp}` }
  }

  return {
    /** `serviceMeta`: the cubes and members the caller may see. */
    meta(context: SemanticContext, searchQuery?: string): MetaResult {
      const { model } = load(context.deployment, context.branchName)
      return buildMeta(model, viewOf(model, context.access), searchQuery)
    },

    /** `serviceSqlApi`: runs one query for the caller; throws `InvalidQueryError`/`QueryTimeoutError` for bad queries. */
    async query(context: SemanticContext, sql: string, maxRows = ROW_CAP): Promise<SqlResult> {
      const startedAt = performance.now()
      const loaded = load(context.deployment, context.branchName)
      const read = sourceOf(context.deployment, loaded)
      const { source, dataVersion } = read
      if (source.type === 'sqlite' && loaded.dataPath === demoPath && !options.dataSources?.has(context.deployment.id))
        demoData()
      // A repeated question skips parsing and compiling: the same text (aliases included), on the same deployment,
      // model and data, for a caller whose access is the same gets the same answer.
      const asked = cacheKey([context.deployment.id, loaded.key, dataVersion, sql, maxRows, accessKey(context.access)])
      const answered = answers.get(asked)
      if (answered) return counted(fromCache(answered.result, answered.computedAt), 'hit', startedAt)
      const view = viewOf(loaded.model, context.access)
      let compiled: CompiledQuery
      try {
        compiled = compileQuery(loaded.model, view, planQuery(loaded.model, view, parseQuery(sql)), source.dialect)
      } catch (error) {
        return failed(error, 'miss')
      }
      // The column names and types are this caller's own; only the rows may come from another caller's query.
      const schema = compiled.columns.map((column) => ({ name: column.name, column_type: column.type }))
      const use: { cache: CacheUse } = { cache: 'miss' }
      let found: QueryRows
      try {
        found = await rows.rowsOf(context, read, compiled, maxRows, use)
      } catch (error) {
        return failed(error, use.cache)
      }
      const result: SqlResult = { schema, data: found.data, totalRows: found.totalRows }
      answers.set(asked, { result, computedAt: found.computedAt }, { ttl: read.keepMs })
      return counted(use.cache === 'hit' ? fromCache(result, found.computedAt) : result, use.cache, startedAt)
    },

    /**
     * Parses and plans a query for the caller without running it: its columns with the model's titles. Throws
     * `InvalidQueryError` as `query` would for a query that cannot run (unknown member, bad SQL), so a saved
     * dashboard can be checked before anyone opens it.
     */
    describe(
      context: SemanticContext,
      sql: string,
    ): Array<{ name: string; type: string; title: string; granularity?: string }> {
      const loaded = load(context.deployment, context.branchName)
      const { model } = loaded
      const view = viewOf(model, context.access)
      const plan = planQuery(model, view, parseQuery(sql))
      compileQuery(model, view, plan, sourceOf(context.deployment, loaded).source.dialect)
      return plan.columns.map((column) => ({
        name: column.name,
        type: column.type,
        title: columnTitleOf(column),
        // A time bucket's grain, so a download writes `2021-01` for a month as the page shows it.
        ...(column.expression.kind === 'truncate' && { granularity: column.expression.granularity }),
      }))
    },

    /**
     * Start-up: generates the demo data when a deployment reads it, and loads every deployment branch's model,
     * so a broken model stops the start (with file, line and member) instead of failing the first question.
     */
    prepare(deployments: DeploymentRef[]): { demo: DemoDataFile | undefined; models: number } {
      let count = 0
      for (const deployment of deployments) {
        const configured = options.dataSources?.has(deployment.id)
        for (const branch of deployment.branches) {
          const loaded = loadAtStart(deployment, branch)
          if (!configured && loaded.dataPath === demoPath) demoData()
          if (!configured && branch === deployment.defaultBranch) fileSources.set(deployment.id, loaded.dataPath)
          count++
        }
        if (configured) connectInBackground(sourceOf(deployment, load(deployment)).source, deployment.id, logger)
      }
      return { demo: demoFileMade(), models: count }
    },

    /**
     * Whether each deployment's data source answers now, for readiness reports (never throws): the configured ones,
     * then the SQLite files of the others (the model folder's `data.db` or the demo data).
     */
    sourceHealth: () => sourceHealthOf(set, options.dataSources, fileSources),

    /** Queries waiting for their account's turn on a source, over every source. */
    queriesWaiting(): number {
      return set.waiting()
    },

    /** The demo data file, generated on first use. */
    demoData,

    close(): void {
      set.close()
      answers.clear()
      rows.clear()
    },
  }
}

type CompiledQuery = ReturnType<typeof compileQuery>

/** Where a deployment's rows are read, the data version cache keys carry, and how long its answers are kept. */
interface ReadSource {
  source: DataSource
  dataVersion: string
  /** Set when the version cannot tell a change of the data: answers are kept this long, not the cache's default. */
  keepMs?: number
}

/** An answer from the cache says so, with when the database computed it: the data may have changed since. */
const fromCache = (result: SqlResult, computedAt: number): SqlResult => ({
  ...result,
  cached: { computedAt: new Date(computedAt).toISOString() },
})

const viewOf = (model: SemanticModel, access: UserAccess) => accessView(model, access.userId === null ? null : access)

/** Everything of the access that the model's policies read (the user id only as "names a user or not"). */
const accessKey = (access: UserAccess) =>
  access.userId === null
    ? null
    : { groups: access.groups, userAttributes: access.userAttributes, securityContext: access.securityContext }

/**
 * The rows of compiled queries, from a cache or from one execution shared by callers asking the same query while it
 * runs (a burst of users asking one question costs one query, not one each).
 */
function createRowReader(set: SourceSet, logger: Logger, entries: { max: number; ttl: number }) {
  const rowCache = new LRUCache<string, QueryRows>(entries)
  const inflight = new Map<string, Promise<QueryRows>>()

  /**
   * Keyed by what decides the rows: the data file, the SQL with its parameters (the caller's row rules among them),
   * the row limit and the column types the values are formatted by.
   */
  function rowsOf(
    context: SemanticContext,
    read: ReadSource,
    compiled: CompiledQuery,
    maxRows: number,
    use: { cache: CacheUse },
  ): Promise<QueryRows> | QueryRows {
    const key = cacheKey([
      read.dataVersion,
      compiled.sql,
      compiled.params,
      maxRows,
      compiled.columns.map((column) => column.type),
    ])
    const hit = rowCache.get(key)
    if (hit) {
      use.cache = 'hit'
      return hit
    }
    const running = inflight.get(key)
    if (running) {
      use.cache = 'shared'
      return running
    }
    const startedAt = performance.now()
    const execution = execute(set, logger, context, read.source, compiled, maxRows)
      .then((rows) => {
        rowCache.set(key, rows, { ttl: read.keepMs })
        logger.debug('semantic query', {
          deploymentId: context.deployment.id,
          ms: Math.round(performance.now() - startedAt),
          rows: rows.totalRows,
        })
        return rows
      })
      .finally(() => inflight.delete(key))
    inflight.set(key, execution)
    return execution
  }

  return { rowsOf, clear: () => rowCache.clear() }
}

/** Runs a compiled query on the source and formats its rows; database errors become `InvalidQueryError`. */
async function execute(
  set: SourceSet,
  logger: Logger,
  context: SemanticContext,
  source: DataSource,
  compiled: CompiledQuery,
  maxRows: number,
): Promise<QueryRows> {
  // The account's turn on the source: a burst of one account's queries waits behind its own, not others'.
  const account = String(context.deployment.accountId ?? `deployment:${context.deployment.id}`)
  const running = set.query(source, account, compiled.sql, compiled.params, maxRows)
  const output = await running.catch((error: unknown) => {
    if (!(error instanceof QueryExecutionError)) {
      if (error instanceof Error && 'code' in error)
        logger.warn('semantic query not answered', {
          deploymentId: context.deployment.id,
          source: source.type,
          code: (error as { code: string }).code,
          reason: (error as { reason?: string }).reason,
        })
      throw error
    }
    const message = redact(error.message)
    logger.warn('semantic query failed in the database', {
      deploymentId: context.deployment.id,
      source: source.type,
      sql: compiled.sql,
      error: message,
    })
    // The database's own words stay in the log: they differ by source, and may name its tables, users or files.
    throw new InvalidQueryError(
      error.missingObject
        ? `The model of deployment ${context.deployment.id} names a table or column its database does not have (the database's reason is in the server log): the model and the database disagree, not the query`
        : 'The database could not run the query (its reason is in the server log); try a simpler form of it',
    )
  })
  // Average columns are their sum over their count (selected after the visible columns), divided exactly.
  const averages = new Map(compiled.averages.map((average) => [average.index, average]))
  return {
    data: output.rows.map((row) =>
      compiled.columns.map((column, index) => {
        const average = averages.get(index)
        return average ? formatAverage(row[average.sum], row[average.count]) : formatValue(row[index], column.type)
      }),
    ),
    totalRows: output.totalRows,
    computedAt: Date.now(),
  }
}

/** A configured source is connected in the background: one that is down never holds up the start. */
function connectInBackground(source: DataSource, deploymentId: number, logger: Logger): void {
  source.connect().then(
    () => logger.info('data source connected', { deploymentId, source: source.type }),
    (error: Error & { reason?: string; category?: string }) =>
      error.category === 'invalid configuration'
        ? logger.error('data source cannot be configured: its deployment answers 503 until it is mended', {
            deploymentId,
            source: source.type,
            error: redact(error.reason ?? error.message),
          })
        : logger.warn('data source unavailable at start; retried at the next query', {
            deploymentId,
            source: source.type,
            error: redact(error.reason ?? error.message),
          }),
  )
}

/** Whether each deployment's data source answers now: the configured ones, then the SQLite files of the others. */
async function sourceHealthOf(
  set: SourceSet,
  dataSources: ReadonlyMap<number, DataSourceConfig> | undefined,
  fileSources: ReadonlyMap<number, string>,
): Promise<Array<{ deploymentId: number; type: string; ms: number } & SourceHealth>> {
  // Side by side, each within the breaker's health limit: a hung source never delays the others' report.
  const timed = async (deploymentId: number, type: string, check: () => Promise<SourceHealth>) => {
    const startedAt = performance.now()
    const health = await check()
    return { deploymentId, type, ms: Math.round((performance.now() - startedAt) * 100) / 100, ...health }
  }
  const configured = [...(dataSources ?? new Map<number, DataSourceConfig>()).entries()].map(
    ([deploymentId, config]) => {
      const source = set.madeFor(deploymentId)
      return timed(deploymentId, config.type, async () =>
        source ? source.health() : { ok: false, error: 'not connected yet' },
      )
    },
  )
  const files = [...fileSources.entries()].map(([deploymentId, path]) =>
    timed(deploymentId, 'sqlite', () => set.file(path).health()),
  )
  // A driver's message may name the connection URL: never shown.
  return (await Promise.all([...configured, ...files])).map((health) =>
    health.ok ? health : { ...health, error: redact(health.error) },
  )
}

export type SemanticService = ReturnType<typeof createSemanticService>
