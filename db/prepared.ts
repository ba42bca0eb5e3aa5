import type { Db } from '../../db/client'

/**
 * A statement prepared once per query executor, for the queries of every embed session and provisioning call. On
 * SQLite a transaction's executor is the storage's own (one connection), so each statement is compiled once for
 * the life of the server; on Postgres each transaction has an executor of its own, and the statement is prepared
 * for it, so it runs inside that transaction and sees its writes.
 */
export function preparedPer<T>(prepare: (db: Db) => T): (db: Db) => T {
  const statements = new WeakMap<Db, T>()
  return (db) => {
    let statement = statements.get(db)
    if (statement === undefined) {
      statement = prepare(db)
      statements.set(db, statement)
    }
    return statement
  }
}
