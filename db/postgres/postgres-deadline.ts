import type { SQL } from 'bun'
import { StorageUnavailableError } from '../../lib/errors'

/**
 * The pool with a deadline on every statement and transaction: a Postgres server that stops answering without
 * closing its connections (a frozen process, a network that drops packets silently) would otherwise hold each
 * request until it answers again, minutes later. Past `ms` the caller gets `StorageUnavailableError` (503
 * `STORAGE_UNAVAILABLE`, as for a server that refuses connections):
 * - a statement is cancelled;
 * - a transaction is rolled back, whenever its work gets to run or resumes: the caller was told it failed, so it
 *   must not commit later (a chat save retried after a timeout would otherwise append its text twice). Only a
 *   deadline that passes while its COMMIT is already on the wire leaves the outcome unknown, as any timeout must.
 *
 * Statements (`client\`...\``, `unsafe`, and the modes `.values()`, `.raw()`, `.simple()`, `.execute()` return) each
 * get `ms`; a transaction (`begin`, `transaction`) gets `ms` as a whole, waiting for a connection and for locks
 * included. Transactions that wait on purpose (start-up's, under an advisory lock) do not go through this pool.
 */
export function withDeadline(client: SQL, ms: number): SQL {
  return new Proxy(client, {
    apply(target, self, args) {
      // A tagged template is a query; `client(rows)` and the like are helpers for one, returned as they are.
      return timedQuery(Reflect.apply(target, self, args), ms)
    },
    get(target, key) {
      const value: unknown = Reflect.get(target, key, target)
      if (typeof value !== 'function') return value
      if (key === 'unsafe') return (...args: unknown[]) => timedQuery(value.apply(target, args), ms)
      if (key === 'begin' || key === 'transaction')
        return (...args: unknown[]) => timedTransaction(value as Begin, target, args, ms)
      return value.bind(target)
    },
  })
}

type Begin = (...args: unknown[]) => Promise<unknown>

function timedTransaction(begin: Begin, client: SQL, args: unknown[], ms: number): Promise<unknown> {
  const work = args.at(-1)
  if (typeof work !== 'function') return begin.apply(client, args)
  let expired = false
  const gone = () => new StorageUnavailableError(`the Postgres server did not answer within ${ms} ms`)
  // Throwing inside the transaction's work makes the driver roll it back rather than commit it.
  const guarded = async (tx: unknown) => {
    if (expired) throw gone()
    const result: unknown = await (work as (tx: unknown) => unknown)(tx)
    if (expired) throw gone()
    return result
  }
  return deadline(begin.apply(client, [...args.slice(0, -1), guarded]), ms, () => {
    expired = true
  })
}

/** A query (lazy until awaited) whose awaiting fails after `ms`, cancelling it. Anything else is returned as is. */
function timedQuery<Q>(query: Q, ms: number): Q {
  if (!isThenable(query)) return query
  const awaited = () => deadline(query, ms, () => (query as { cancel?(): void }).cancel?.())
  return new Proxy(query, {
    get(target, key) {
      if (key === 'then')
        return (resolve?: (value: unknown) => unknown, reject?: (reason: unknown) => unknown) =>
          awaited().then(resolve, reject)
      if (key === 'catch') return (reject?: (reason: unknown) => unknown) => awaited().catch(reject)
      if (key === 'finally') return (done?: () => void) => awaited().finally(done)
      const value: unknown = Reflect.get(target, key, target)
      if (typeof value !== 'function') return value
      // The result modes, and `execute`, return the query itself, to be awaited: it keeps its deadline.
      if (key === 'values' || key === 'raw' || key === 'simple' || key === 'execute')
        return (...args: unknown[]) => timedQuery(value.apply(target, args), ms)
      return value.bind(target)
    },
  })
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  )
}

function deadline<T>(work: PromiseLike<T>, ms: number, onTimeout: () => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      try {
        onTimeout()
      } catch {
        // Cancelling is best effort; the caller is answered either way.
      }
      reject(new StorageUnavailableError(`the Postgres server did not answer within ${ms} ms`))
    }, ms)
    work.then(
      (value) => {
        clearTimeout(timer)
        resolve(value)
      },
      (error: unknown) => {
        clearTimeout(timer)
        reject(error)
      },
    )
  })
}
