/**
 * Configuration from environment variables, checked once at start. Every problem is
 * collected and reported together, each naming its variable, so a bad deployment fails with one clear message.
 */
import { availableParallelism } from 'node:os'

export type LogLevel = 'debug' | 'info' | 'warn' | 'error'

/** `pretty`: one readable line per entry (for a terminal); `json`: one JSON object per line (for collectors). */
export type LogFormat = 'json' | 'pretty'

/** A token bucket: `burst` requests at once, refilled at `perSecond`; 0 turns the limit off. */
export interface RateLimit {
  perSecond: number
  burst: number
}

export interface LlmConfig {
  baseUrl: string
  apiKey: string | undefined
  model: string
}

export interface Config {
  port: number
  host: string
  dbPath: string
  /** Redis shared by the nodes for their active runs; unset: runs live in this process's memory only. */
  redisUrl: string | undefined
  /** `postgres://...`: the service's own state lives in this Postgres database instead of the SQLite file. */
  databaseUrl: string | undefined
  /** Connections in the Postgres pool of this node. */
  databasePoolSize: number
  databaseTimeoutMs: number
  bootstrapFile: string | undefined
  llm: LlmConfig | undefined
  analystDelayMs: number
  logLevel: LogLevel
  /** Unset: pretty when stdout is a terminal, JSON otherwise. */
  logFormat: LogFormat | undefined
  /** Browser origins allowed to call the API (exact `scheme://host[:port]`); empty: no CORS headers at all. */
  corsOrigins: string[]
  /** Request rate limit per API key. */
  apiKeyRateLimit: RateLimit
  /** Request rate limit per embed session (its tokens and its page requests). */
  embedSessionRateLimit: RateLimit
  /** Prefix of the service's own metric names (`<prefix>_build_info`, ...). */
  metricsPrefix: string
  /** Largest request body accepted, in bytes; larger ones get 413. */
  maxBodyBytes: number
  /** How long SIGTERM waits for in-flight requests and runs before closing the database. */
  shutdownGraceMs: number
  /** Fixed demo admin key instead of a random one (handy for scripts); applies only when the demo is bootstrapped. */
  demoApiKey: string | undefined
  /** Where the generated demo data lives; defaults next to the database. */
  demoDataPath: string | undefined
  /** Longest lifetime a service JWT may claim (`exp - iat`, or `exp - now` without `iat`), in seconds. */
  serviceTokenMaxTtlS: number
  chatLimits: ChatLimits
  queryLimits: QueryLimits
  /** Server processes sharing the port (1: this process serves alone); more need the shared run registry. */
  workers: number
}

/** How many chat runs the server takes on, and how long one may take (see `plugins/chat/registry/run-admission.ts`). */
export interface ChatLimits {
  /** Runs one user may have running or waiting at once; more are 429. */
  maxRunsPerUser: number
  /** Runs one API key may have running or waiting at once; more are 429. */
  maxRunsPerKey: number
  /** Runs executing at once, server-wide; the next ones wait in a queue, in the order they came. */
  maxActiveRuns: number
  /** Runs that may wait for a place; beyond that, 429. */
  runQueueSize: number
  /** A turn ends with an error line when the model sends nothing for this long. */
  firstTokenTimeoutMs: number
  /** A turn ends with an error line once it has run this long. */
  turnTimeoutMs: number
}

/** How the data sources are shared among accounts (see `plugins/semantic/sources/fair-scheduler.ts`). */
export interface QueryLimits {
  /** Processes running SQLite queries (the demo data, model `data.db` files, SQLite sources); default: the cores. */
  sqliteWorkers: number
  /** Queries one account may run at once on one source; unset: all of its places but one. */
  perAccount: number | undefined
  /** Queries one account may have waiting on one source; more are 429 `TOO_MANY_QUERIES`. */
  queuePerAccount: number
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`)
    this.name = 'ConfigError'
  }
}

const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error']
const LOG_FORMATS: readonly LogFormat[] = ['json', 'pretty']

function origins(environment: Record<string, string | undefined>, problems: string[]): string[] {
  const raw = text(environment, 'CORS_ORIGINS')
  if (raw === undefined) return []
  const list: string[] = []
  for (const entry of raw
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)) {
    // An origin is exactly scheme, host and port: a path or a trailing slash would never match a browser's Origin.
    const parsed = URL.canParse(entry) ? new URL(entry) : undefined
    if (!parsed || !/^https?:$/.test(parsed.protocol) || parsed.origin !== entry)
      problems.push(`CORS_ORIGINS: ${JSON.stringify(entry)} is not an origin like https://app.example.com`)
    else list.push(parsed.origin)
  }
  return list
}

function rateLimit(
  environment: Record<string, string | undefined>,
  prefix: string,
  fallback: RateLimit,
  problems: string[],
): RateLimit {
  const perSecond = integer(environment, `${prefix}_PER_SECOND`, fallback.perSecond, 0, 1_000_000, problems)
  const burst = integer(environment, `${prefix}_BURST`, Math.max(fallback.burst, perSecond), 0, 10_000_000, problems)
  return { perSecond, burst }
}

function integer(
  environment: Record<string, string | undefined>,
  name: string,
  fallback: number,
  min: number,
  max: number,
  problems: string[],
): number {
  const raw = environment[name]
  if (raw === undefined || raw.trim() === '') return fallback
  // Decimal digits only: Number() would also read '0x10' as 16 and '1e3' as 1000, a port or limit nobody meant.
  const digits = raw.trim()
  const value = /^\d+$/.test(digits) ? Number(digits) : Number.NaN
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    problems.push(`${name}: expected an integer from ${min} to ${max}, got ${JSON.stringify(raw)}`)
    return fallback
  }
  return value
}

function text(environment: Record<string, string | undefined>, name: string): string | undefined {
  const raw = environment[name]
  return raw === undefined || raw.trim() === '' ? undefined : raw.trim()
}

// The URL itself is never echoed back: it usually carries a password.
function isPostgresUrl(raw: string): boolean {
  return URL.canParse(raw) && /^postgres(ql)?:$/.test(new URL(raw).protocol) && new URL(raw).hostname !== ''
}

/** Reads and checks the configuration; throws `ConfigError` listing every problem. */
export function loadConfig(environment: Record<string, string | undefined> = process.env): Config {
  const problems: string[] = []
  const port = integer(environment, 'PORT', 4000, 0, 65535, problems)
  const host = text(environment, 'HOST') ?? '0.0.0.0'
  const dbPath = text(environment, 'DB_PATH') ?? './data/service.db'
  const databaseUrl = text(environment, 'DATABASE_URL')
  if (databaseUrl !== undefined && !isPostgresUrl(databaseUrl))
    problems.push('DATABASE_URL: expected a postgres:// or postgresql:// URL')
  const databasePoolSize = integer(environment, 'DATABASE_POOL_SIZE', 10, 1, 1000, problems)
  const databaseTimeoutMs = integer(environment, 'DATABASE_TIMEOUT_MS', 5000, 100, 600_000, problems)
  const bootstrapFile = text(environment, 'BOOTSTRAP_FILE')
  const analystDelayMs = integer(environment, 'ANALYST_DELAY_MS', 15, 0, 10_000, problems)
  const maxBodyBytes = integer(environment, 'MAX_BODY_BYTES', 10 * 1024 * 1024, 1024, 1024 * 1024 * 1024, problems)
  const shutdownGraceMs = integer(environment, 'SHUTDOWN_GRACE_MS', 10_000, 0, 600_000, problems)
  const serviceTokenMaxTtlS = integer(environment, 'SERVICE_TOKEN_MAX_TTL_S', 86_400, 1, 31_536_000, problems)
  const chatLimits: ChatLimits = {
    maxRunsPerUser: integer(environment, 'CHAT_MAX_RUNS_PER_USER', 4, 1, 10_000_000, problems),
    maxRunsPerKey: integer(environment, 'CHAT_MAX_RUNS_PER_KEY', 1000, 1, 10_000_000, problems),
    maxActiveRuns: integer(environment, 'CHAT_MAX_ACTIVE_RUNS', 256, 1, 10_000_000, problems),
    runQueueSize: integer(environment, 'CHAT_RUN_QUEUE_SIZE', 1024, 0, 10_000_000, problems),
    firstTokenTimeoutMs: integer(environment, 'LLM_FIRST_TOKEN_TIMEOUT_MS', 30_000, 10, 3_600_000, problems),
    turnTimeoutMs: integer(environment, 'CHAT_TURN_TIMEOUT_MS', 120_000, 10, 24 * 3_600_000, problems),
  }

  const perAccount = integer(environment, 'QUERIES_PER_ACCOUNT', 0, 0, 10_000, problems)
  const queryLimits: QueryLimits = {
    // At least 4: an account runs at most all places but one, so on a 2-core machine 2 places would leave a
    // deployment with one account (the default) one query at a time; queries wait on the disk as well as the cores.
    sqliteWorkers: integer(environment, 'SQLITE_QUERY_WORKERS', Math.max(4, availableParallelism()), 1, 256, problems),
    perAccount: perAccount === 0 ? undefined : perAccount,
    queuePerAccount: integer(environment, 'QUERY_QUEUE_PER_ACCOUNT', 50, 1, 100_000, problems),
  }

  const rawLevel = (text(environment, 'LOG_LEVEL') ?? 'info').toLowerCase()
  let logLevel: LogLevel = 'info'
  if ((LOG_LEVELS as readonly string[]).includes(rawLevel)) logLevel = rawLevel as LogLevel
  else problems.push(`LOG_LEVEL: expected one of ${LOG_LEVELS.join(', ')}, got ${JSON.stringify(rawLevel)}`)

  const rawFormat = text(environment, 'LOG_FORMAT')?.toLowerCase()
  let logFormat: LogFormat | undefined
  if (rawFormat === undefined || rawFormat === 'auto') logFormat = undefined
  else if ((LOG_FORMATS as readonly string[]).includes(rawFormat)) logFormat = rawFormat as LogFormat
  else problems.push(`LOG_FORMAT: expected json or pretty, got ${JSON.stringify(rawFormat)}`)

  const corsOrigins = origins(environment, problems)
  // Generous defaults: they stop a runaway client, not a busy backend (the run admission limits concurrent runs).
  const apiKeyRateLimit = rateLimit(environment, 'RATE_LIMIT_API_KEY', { perSecond: 200, burst: 1000 }, problems)
  const embedSessionRateLimit = rateLimit(
    environment,
    'RATE_LIMIT_EMBED_SESSION',
    { perSecond: 20, burst: 200 },
    problems,
  )
  const metricsPrefix = text(environment, 'METRICS_PREFIX') ?? 'acs'
  if (!/^[a-zA-Z_][a-zA-Z0-9_]*$/.test(metricsPrefix))
    problems.push(`METRICS_PREFIX: expected letters, digits and underscores, got ${JSON.stringify(metricsPrefix)}`)

  const llmBaseUrl = text(environment, 'LLM_BASE_URL')
  const llmApiKey = text(environment, 'LLM_API_KEY')
  const llmModel = text(environment, 'LLM_MODEL')
  let llm: LlmConfig | undefined
  if (llmBaseUrl !== undefined) {
    if (!URL.canParse(llmBaseUrl) || !/^https?:$/.test(new URL(llmBaseUrl).protocol))
      problems.push(`LLM_BASE_URL: expected an http(s) URL, got ${JSON.stringify(llmBaseUrl)}`)
    if (llmModel === undefined) problems.push('LLM_MODEL: required when LLM_BASE_URL is set')
    llm = { baseUrl: llmBaseUrl, apiKey: llmApiKey, model: llmModel ?? '' }
  } else if (llmModel !== undefined || llmApiKey !== undefined) {
    problems.push('LLM_BASE_URL: required when LLM_MODEL or LLM_API_KEY is set')
  }

  const redisUrl = text(environment, 'REDIS_URL')
  if (redisUrl !== undefined && (!URL.canParse(redisUrl) || !/^rediss?:$/.test(new URL(redisUrl).protocol)))
    problems.push('REDIS_URL: expected a redis:// or rediss:// URL')

  const demoApiKey = text(environment, 'DEMO_API_KEY')
  if (demoApiKey !== undefined && demoApiKey.length < 16) problems.push('DEMO_API_KEY: must be at least 16 characters')
  // Sent as `Authorization: Api-Key <key>`: a key with a space or outside printable ASCII could never be used.
  else if (demoApiKey !== undefined && !/^[\x21-\x7e]+$/.test(demoApiKey))
    problems.push('DEMO_API_KEY: must be printable ASCII without spaces (it is sent in the Authorization header)')

  const workers = integer(environment, 'WORKERS', 1, 1, 64, problems)
  // Each process has its own memory: without Redis a rejoin, an abort or the busy check would miss the runs of the
  // other processes, and an in-memory database would be one database per process.
  if (workers > 1 && text(environment, 'REDIS_URL') === undefined)
    problems.push('WORKERS: more than 1 needs REDIS_URL (the processes share their runs through Redis)')
  if (workers > 1 && text(environment, 'DATABASE_URL') === undefined && dbPath === ':memory:')
    problems.push('WORKERS: more than 1 needs DATABASE_URL or a DB_PATH file (:memory: is one database per process)')

  if (problems.length > 0) throw new ConfigError(problems)
  return {
    port,
    host,
    dbPath,
    redisUrl,
    databaseUrl,
    databasePoolSize,
    databaseTimeoutMs,
    bootstrapFile,
    llm,
    analystDelayMs,
    logLevel,
    logFormat,
    corsOrigins,
    apiKeyRateLimit,
    embedSessionRateLimit,
    metricsPrefix,
    maxBodyBytes,
    shutdownGraceMs,
    demoApiKey,
    demoDataPath: text(environment, 'DEMO_DATA_PATH'),
    serviceTokenMaxTtlS,
    chatLimits,
    queryLimits,
    workers,
  }
}
