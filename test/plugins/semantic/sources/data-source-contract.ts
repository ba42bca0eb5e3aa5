import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { QueryExecutionError, type DataSource } from '../../../../plugins/semantic/sources/data-source'

export interface ContractSubject {
  /** A source over the demo tables, with at most 2 connections and a 500 ms statement limit. */
  source: DataSource
  /** A query that runs for seconds on this database. */
  slowSql: string
  /** The id of the connection a query runs on (pooled sources: the pool-reuse test). */
  connectionIdSql?: string
  /** The same source with `schema` set (sources that take one). */
  inSchema?: (schema: string) => DataSource
}

/**
 * The DataSource contract, run against every implementation: bound parameters, row cap with the full count,
 * read-only sessions, a statement limit that stops the query, pooled connections, a schema that does not exist,
 * health, close.
 */
export function dataSourceContract(
  name: string,
  make: () => Promise<ContractSubject>,
  options: { skip?: boolean; pooled?: boolean; schemas?: boolean } = {},
) {
  describe.skipIf(Boolean(options.skip))(`DataSource contract: ${name}`, () => {
    let subject: ContractSubject
    beforeAll(async () => {
      subject = await make()
      await subject.source.connect()
    }, 180_000)
    afterAll(async () => {
      await subject?.source.close()
    })
    const p = (index: number) => subject.source.dialect.placeholder(index)

    it('answers health checks', async () => {
      expect(await subject.source.health()).toEqual({ ok: true })
    })

    it('binds values as parameters: a quote in a value never changes the statement', async () => {
      const hit = await subject.source.query(`SELECT id FROM products WHERE name = ${p(1)}`, ['Pro Monitor'], 10)
      expect(hit.totalRows).toBeGreaterThan(0)
      const sneaky = await subject.source.query(`SELECT id FROM products WHERE name = ${p(1)}`, ["x' OR '1'='1"], 10)
      expect(sneaky).toEqual({ rows: [], totalRows: 0 })
    })

    it('returns at most maxRows rows and counts every row in totalRows', async () => {
      const output = await subject.source.query('SELECT id FROM products ORDER BY id', [], 5)
      expect(output.rows.map((row) => Number(row[0]))).toEqual([1, 2, 3, 4, 5])
      expect(output.totalRows).toBe(120)
    })

    it('refuses to write', async () => {
      const outcome = await subject.source.query('DELETE FROM products', [], 1).catch((error: Error) => error)
      expect(outcome).toBeInstanceOf(QueryExecutionError)
      expect(
        (await subject.source.query('SELECT COUNT(*) FROM products', [], 1)).rows.map((row) => Number(row[0])),
      ).toEqual([120])
    })

    it('tells a table or column the database lacks (the model and the database disagree) from other failures', async () => {
      const failure = (sql: string) => subject.source.query(sql, [], 1).catch((error: Error) => error)
      for (const sql of ['SELECT COUNT(*) FROM no_such_table', 'SELECT no_such_column FROM products'])
        expect({ sql, failure: await failure(sql) }).toMatchObject({
          sql,
          failure: { constructor: QueryExecutionError, missingObject: true },
        })
      expect(await failure('SELECT FROM WHERE')).toMatchObject({
        constructor: QueryExecutionError,
        missingObject: false,
      })
    })

    it('stops a statement past its limit with 504 QUERY_TIMEOUT, and keeps answering', async () => {
      const outcome = await subject.source.query(subject.slowSql, [], 1).catch((error: Error) => error)
      expect(outcome).toMatchObject({ status: 504, code: 'QUERY_TIMEOUT' })
      expect(
        (await subject.source.query('SELECT COUNT(*) FROM regions', [], 1)).rows.map((row) => Number(row[0])),
      ).toEqual([6])
    }, 30_000)

    // Only sources that take a schema (SQLite does not).
    if (options.schemas)
      it('is unavailable, not a bad query, while the schema it names does not exist', async () => {
        const source = subject.inSchema!('no_such_schema')
        try {
          expect(await source.health()).toMatchObject({ ok: false })
          expect(
            await source.query('SELECT COUNT(*) FROM products', [], 1).catch((error: Error) => error),
          ).toMatchObject({
            status: 503,
            code: 'DATA_SOURCE_UNAVAILABLE',
          })
        } finally {
          await source.close()
        }
      })

    // Only sources with a connection pool of their own (the SQLite workers are shared by every source).
    if (options.pooled)
      it('reuses its pooled connections instead of opening one per query', async () => {
        const outputs = await Promise.all(
          Array.from({ length: 20 }, () => subject.source.query(subject.connectionIdSql as string, [], 1)),
        )
        const ids = new Set(outputs.map((output) => String(output.rows[0][0])))
        expect(ids.size).toBeGreaterThanOrEqual(1)
        expect(ids.size).toBeLessThanOrEqual(2)
      })
  })
}
