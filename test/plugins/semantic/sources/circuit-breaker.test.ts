import { describe, expect, it } from 'bun:test'
import { DataSourceUnavailableError, QueryTimeoutError } from '../../../../plugins/semantic/errors'
import { withCircuitBreaker } from '../../../../plugins/semantic/sources/circuit-breaker'
import type { DataSource, QueryOutput, SourceHealth } from '../../../../plugins/semantic/sources/data-source'
import { postgresDialect } from '../../../../plugins/semantic/sources/dialects/postgres-dialect'
import { classifyServerError } from '../../../../plugins/semantic/sources/server-errors'

/** A source whose next answers the test decides, counting the queries and health checks that reached it. */
function scriptedSource() {
  const calls = { queries: 0, health: 0 }
  let answer: () => Promise<QueryOutput> = async () => ({ rows: [[1]], totalRows: 1 })
  let health: () => Promise<SourceHealth> = async () => ({ ok: true })
  const source: DataSource = {
    type: 'postgres',
    dialect: postgresDialect,
    connect: async () => {},
    query: () => {
      calls.queries++
      return answer()
    },
    health: () => {
      calls.health++
      return health()
    },
    dataStamp: () => undefined,
    close: async () => {},
  }
  return {
    source,
    calls,
    answer: (next: () => Promise<QueryOutput>) => void (answer = next),
    health: (next: () => Promise<SourceHealth>) => void (health = next),
  }
}

const hung = async (): Promise<never> => {
  throw new QueryTimeoutError(1000, 'no answer', 7)
}

describe('withCircuitBreaker', () => {
  it('opens after consecutive failures, answers 503 at once for the cool-down, then lets one probe through', async () => {
    let now = 0
    const scripted = scriptedSource()
    const source = withCircuitBreaker(scripted.source, {
      failures: 3,
      coolDownMs: 10_000,
      healthTimeoutMs: 100,
      clock: () => now,
      deploymentId: 7,
    })
    scripted.answer(hung)
    for (let attempt = 0; attempt < 3; attempt++)
      await expect(source.query('SELECT 1', [], 1)).rejects.toMatchObject({ code: 'QUERY_TIMEOUT' })
    expect(source.circuit()).toBe('open')
    now = 4_000
    const refused = await source.query('SELECT 1', [], 1).catch((error: DataSourceUnavailableError) => error)
    expect(refused).toMatchObject({ status: 503, code: 'DATA_SOURCE_UNAVAILABLE', retryAfterSeconds: 6 })
    expect(scripted.calls.queries).toBe(3)

    // After the cool-down one probe goes to the database; a query meanwhile is still refused at once.
    now = 10_000
    let release: (output: QueryOutput) => void = () => {}
    scripted.answer(() => new Promise((resolve) => (release = resolve)))
    const probe = source.query('SELECT 1', [], 1)
    await expect(source.query('SELECT 1', [], 1)).rejects.toMatchObject({ code: 'DATA_SOURCE_UNAVAILABLE' })
    expect(scripted.calls.queries).toBe(4)
    release({ rows: [[1]], totalRows: 1 })
    expect(await probe).toEqual({ rows: [[1]], totalRows: 1 })
    expect(source.circuit()).toBe('closed')
    scripted.answer(async () => ({ rows: [[2]], totalRows: 1 }))
    expect(await source.query('SELECT 1', [], 1)).toEqual({ rows: [[2]], totalRows: 1 })
  })

  it('opens again at once when the probe fails', async () => {
    let now = 0
    const scripted = scriptedSource()
    const source = withCircuitBreaker(scripted.source, {
      failures: 2,
      coolDownMs: 1_000,
      healthTimeoutMs: 100,
      clock: () => now,
    })
    scripted.answer(async () => {
      throw new DataSourceUnavailableError(7, 'connection refused')
    })
    for (let attempt = 0; attempt < 2; attempt++) await source.query('SELECT 1', [], 1).catch(() => {})
    now = 1_000
    await expect(source.query('SELECT 1', [], 1)).rejects.toMatchObject({ reason: 'connection refused' })
    expect(source.circuit()).toBe('open')
    await expect(source.query('SELECT 1', [], 1)).rejects.toMatchObject({
      reason: 'circuit open after consecutive failures',
    })
    expect(scripted.calls.queries).toBe(3)
  })

  it('never opens for slow or refused queries: the database answered them', async () => {
    const scripted = scriptedSource()
    const source = withCircuitBreaker(scripted.source, { failures: 2, coolDownMs: 60_000, healthTimeoutMs: 100 })
    scripted.answer(async () => {
      throw new QueryTimeoutError(1000, 'slow')
    })
    for (let attempt = 0; attempt < 5; attempt++)
      await expect(source.query('SELECT 1', [], 1)).rejects.toMatchObject({
        message: expect.stringContaining('narrow it down'),
      })
    expect(source.circuit()).toBe('closed')
    expect(scripted.calls.queries).toBe(5)
  })

  it('reports a health check that hangs as no answer within its limit, with one check at a time', async () => {
    const scripted = scriptedSource()
    scripted.health(() => new Promise(() => {}))
    const source = withCircuitBreaker(scripted.source, { failures: 3, coolDownMs: 60_000, healthTimeoutMs: 50 })
    const startedAt = performance.now()
    const [first, second] = await Promise.all([source.health(), source.health()])
    expect(performance.now() - startedAt).toBeLessThan(1_000)
    expect(first).toEqual({ ok: false, error: 'no answer' })
    expect(second).toEqual(first)
    expect(await source.health()).toEqual(first)
    expect(scripted.calls.health).toBe(1)
  })
})

describe('QueryTimeoutError', () => {
  it('tells a database that did not answer from a slow query, with the advice only for the latter', () => {
    expect(new QueryTimeoutError(30_000).message).toContain('narrow it down')
    const silent = new QueryTimeoutError(30_000, 'no answer', 3)
    expect(silent.message).toContain('database of deployment 3 did not answer within 30000 ms')
    expect(silent.message).not.toContain('narrow it down')
    expect(silent).toMatchObject({ status: 504, code: 'QUERY_TIMEOUT' })
  })
  it('tells a connection whose handshake got no reply as a database that did not answer, on Postgres and MySQL', () => {
    for (const code of ['ERR_POSTGRES_CONNECTION_TIMEOUT', 'ERR_MYSQL_CONNECTION_TIMEOUT']) {
      const error = Object.assign(
        new Error('Connection timeout after 5s (sent startup message, but never received response)'),
        { code },
      )
      const classified = classifyServerError(error, 4, 30_000)
      expect(classified).toBeInstanceOf(DataSourceUnavailableError)
      expect(classified).toMatchObject({ status: 503, category: 'no answer' })
      expect(classified.message).toContain('database of deployment 4 did not answer')
      expect(classified.message).not.toContain('narrow it down')
    }
  })
})
