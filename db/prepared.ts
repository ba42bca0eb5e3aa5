import type { Db } from './client'

/** A prepared drizzle query: `execute` runs it with the values of its placeholders. */
interface Executable {
  execute(values?: Record<string, unknown>): PromiseLike<unknown>
}

/** A prepared statement as repositories run it: awaited, its result there at once on SQLite. */
export interface PreparedStatement<T extends Executable> {
  execute(
    ...values: Parameters<T['execute']>
  ): Awaited<ReturnType<T['execute']>> | Promise<Awaited<ReturnType<T['execute']>>>
}

/**
 * Runs a prepared query the quickest way its driver allows. bun:sqlite answers synchronously, but drizzle's `execute`
 * wraps each answer in a query promise and an async function: a chain of promises and turns of the microtask queue
 * per statement, about as much again as a small indexed read. On SQLite the query's own synchronous method (the one
 * `execute` would call) runs instead; the caller awaits either. Drizzle does not type that method name: when it is
 * missing, `execute` runs as before.
 */
function runner<T extends Executable>(statement: T): PreparedStatement<T> {
  const { mode, executeMethod } = statement as unknown as { mode?: unknown; executeMethod?: unknown }
  const method =
    mode === 'sync' && typeof executeMethod === 'string'
      ? ((statement as unknown as Record<string, unknown>)[executeMethod] as
          ((values?: unknown) => unknown) | undefined)
      : undefined
  if (typeof method !== 'function') return statement as unknown as PreparedStatement<T>
  return { execute: (values?: unknown) => method.call(statement, values) } as unknown as PreparedStatement<T>
}

/**
 * A statement prepared once per query executor, for the queries of every embed session and provisioning call. On
 * SQLite a transaction's executor is the storage's own (one connection), so each statement is compiled once for
 * the life of the server; on Postgres each transaction has an executor of its own, and the statement is prepared
 * for it, so it runs inside that transaction and sees its writes.
 */
export function preparedPer<T extends Executable>(prepare: (db: Db) => T): (db: Db) => PreparedStatement<T> {
  const statements = new WeakMap<Db, PreparedStatement<T>>()
  return (db) => {
    let statement = statements.get(db)
    if (statement === undefined) {
      statement = runner(prepare(db))
      statements.set(db, statement)
    }
    return statement
  }
}

/**
 * One prepared query on the storage's own executor, run as `preparedPer` runs them: for the reads of every request
 * outside a transaction (a deployment's chat thread policies, an embed token's session).
 */
export function preparedOnce<T extends Executable>(statement: T): PreparedStatement<T> {
  return runner(statement)
}
