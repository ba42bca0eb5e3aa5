import { describe, expect, it } from 'bun:test'
import { SQL } from 'bun'
import { sql } from 'drizzle-orm'
import { drizzle } from 'drizzle-orm/bun-sql'
import { asStorageUnavailable } from '../../db/storage-errors'
import { StorageUnavailableError } from '../../lib/errors'
import { freePort } from '../helpers/database-servers'

/** What Bun.SQL rejects with for `SELECT 1` through `run`. */
async function failure(run: () => Promise<unknown>): Promise<unknown> {
  return run().then(
    () => {
      throw new Error('the statement succeeded')
    },
    (error: unknown) => error,
  )
}

/** A server error as Bun.SQL reports it: `errno` holds the SQLSTATE. */
const serverError = (errno: string) =>
  Object.assign(new Error(`server said ${errno}`), { code: 'ERR_POSTGRES_SERVER_ERROR', errno })

describe('asStorageUnavailable', () => {
  it('recognises a refused connection, also inside the query builder’s wrapper, without the URL in the message', async () => {
    const url = `postgres://svc:secret@127.0.0.1:${await freePort()}/state`
    const client = new SQL(url, { max: 1, connectionTimeout: 2 })
    try {
      for (const error of [
        await failure(() => client.unsafe('SELECT 1')),
        await failure(() => drizzle({ client }).execute(sql`SELECT 1`)),
      ]) {
        const unavailable = asStorageUnavailable(error)
        expect(unavailable).toBeInstanceOf(StorageUnavailableError)
        expect(unavailable).toMatchObject({ status: 503, code: 'STORAGE_UNAVAILABLE', retryAfterSeconds: 5 })
        expect(unavailable!.reason).toContain('ERR_POSTGRES_CONNECTION_REFUSED')
        expect(unavailable!.message).not.toContain('secret')
      }
    } finally {
      await client.close()
    }
  })

  it('recognises a closed pool, a shut-down server and a connection exception', () => {
    for (const error of [
      Object.assign(new Error('Connection closed'), { code: 'ERR_POSTGRES_CONNECTION_CLOSED' }),
      Object.assign(new Error('Connection timeout'), { code: 'ERR_POSTGRES_CONNECTION_TIMEOUT' }),
      serverError('57P01'),
      serverError('57P03'),
      serverError('08006'),
      new Error('Failed query: SELECT 1', { cause: serverError('57P01') }),
    ])
      expect(asStorageUnavailable(error)?.code).toBe('STORAGE_UNAVAILABLE')
  })

  it('leaves SQL errors, constraint violations, serialization failures and other errors alone', () => {
    for (const error of [
      serverError('42703'),
      serverError('23505'),
      serverError('40001'),
      serverError('57014'),
      new Error('Failed query: INSERT', { cause: serverError('23505') }),
      Object.assign(new Error('syntax'), { code: 'ERR_POSTGRES_SYNTAX_ERROR' }),
      Object.assign(new Error('constraint'), { code: 'SQLITE_CONSTRAINT_UNIQUE' }),
      new Error('plain'),
      undefined,
      'text',
    ])
      expect(asStorageUnavailable(error)).toBeUndefined()
  })
})
