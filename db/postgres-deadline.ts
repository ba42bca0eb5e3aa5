import type { SQL } from 'bun'
import { StorageUnavailableError } from '../lib/errors'

/**
 * The pool with a deadline on every statement and transaction: a Postgres server that stops answering without
 * closing its connections (a frozen process, a network that drops packets silently) would otherwise hold each
 * request until it answers again, minutes later. Past `ms` the caller gets `StorageUnavailableError` (503
 * `STORAGE_UNAVAILABLE`, as for a server that refuses connections) and the statement is cancelled. A transaction's
 * outcome is then unknown to the caller, as with any timeout: it may still commit once the server answers.
 *
 * Statements (`client\`...\``, `unsafe`, and what `.values()` returns) each get `ms`; a transaction (`begin`) gets
 * `ms` as a whole, its statements inside it included.
 */
export function withDeadline(client: SQL, ms: number): SQL {
  return new Proxy(client, {
    apply(target, self, args) {
      return timedQuery(Reflect.apply(target, self, args), ms)
    },
    get(target, key) {
      const value: unknown = Reflect.get(target, key, target)
      if (typeof value !== 'function') return value
      if (key === 'unsafe') return (...args: unknown[]) => timedQuery(value.apply(target, args), ms)
      if (key === 'begin') return (...args: unknown[]) => deadline(value.apply(target, args), ms)
      return value.bind(target)
    },
  })
}

/** A query (lazy until awaited) whose awaiting fails after `ms`, cancelling it. */
function timedQuery<Q extends PromiseLike<unknown>>(query: Q, ms: number): Q {
  return new Proxy(query, {
    get(target, key) {
      if (key === 'then')
        return (resolve?: (value: unknown) => unknown, reject?: (reason: unknown) => unknown) =>
          deadline(target, ms, () => (target as { cancel?(): void }).cancel?.()).then(resolve, reject)
      const value: unknown = Reflect.get(target, key, target)
      if (typeof value !== 'function') return value
      // The result modes return the query itself, to be awaited: it keeps its deadline.
      if (key === 'values' || key === 'raw' || key === 'simple')
        return (...args: unknown[]) => timedQuery(value.apply(target, args), ms)
      return value.bind(target)
    },
  })
}

function deadline<T>(work: PromiseLike<T>, ms: number, onTimeout?: () => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      try {
        onTimeout?.()
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
