import type { Database } from 'bun:sqlite'

/** One call of the write batch: synchronous bun:sqlite work, or awaited work holding the connection. */
export interface BatchItem {
  work: () => unknown
  awaited: boolean
  resolve(value: unknown): void
  reject(error: unknown): void
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown }

/**
 * How one group commit runs its items in the transaction just begun: each in a savepoint of its own, so a failing item
 * rolls back alone and fails only its own caller; every caller settles after COMMIT, never before. The statements are
 * prepared once: compiling them per transaction costs more than a small transaction's own statements.
 */
export function createBatchCommit(sqlite: Database) {
  // Wrapped once: inside the batch's transaction each write becomes a savepoint.
  const savepoint = sqlite.transaction((work: () => unknown) => work())
  const statements = {
    begin: sqlite.prepare('BEGIN IMMEDIATE'),
    commit: sqlite.prepare('COMMIT'),
    rollback: sqlite.prepare('ROLLBACK'),
    savepoint: sqlite.prepare('SAVEPOINT batch_item'),
    release: sqlite.prepare('RELEASE batch_item'),
    rollbackTo: sqlite.prepare('ROLLBACK TO batch_item'),
  }

  function settle(items: BatchItem[], outcomes: Outcome[]): void {
    items.forEach((item, index) => {
      const outcome = outcomes[index]
      if (outcome.ok) item.resolve(outcome.value)
      else item.reject(outcome.error)
    })
  }

  function rejectAll(items: BatchItem[], error: unknown): void {
    for (const item of items) item.reject(error)
  }

  function savepointOutcome(item: BatchItem): Outcome {
    try {
      return { ok: true, value: savepoint(item.work) }
    } catch (error) {
      return { ok: false, error }
    }
  }

  /** One awaited transaction's work in its savepoint of the open batch transaction. */
  async function inSavepoint(item: BatchItem): Promise<Outcome> {
    statements.savepoint.run()
    try {
      const value = await item.work()
      statements.release.run()
      return { ok: true, value }
    } catch (error) {
      // An error SQLite answers by rolling back the whole transaction leaves no savepoint to return to.
      if (sqlite.inTransaction) {
        statements.rollbackTo.run()
        statements.release.run()
      }
      return { ok: false, error }
    }
  }

  return {
    rejectAll,
    /** BEGIN IMMEDIATE, waiting in SQLite's busy handler: only once the wait on timers is over. */
    beginWaiting(): void {
      statements.begin.run()
    },
    /** Synchronous writes only, in the transaction just begun: committed before this returns. */
    writes(items: BatchItem[]): void {
      let outcomes: Outcome[]
      try {
        outcomes = items.map(savepointOutcome)
        statements.commit.run()
      } catch (error) {
        if (sqlite.inTransaction) statements.rollback.run()
        rejectAll(items, error)
        return
      }
      settle(items, outcomes)
    },
    /** Writes and awaited transactions, in order, in the transaction just begun; run under the connection's lock. */
    async transactions(items: BatchItem[]): Promise<void> {
      const outcomes: Outcome[] = []
      try {
        for (const item of items) {
          const outcome = item.awaited ? await inSavepoint(item) : savepointOutcome(item)
          outcomes.push(outcome)
          if (!sqlite.inTransaction) {
            // Everything before this item was rolled back with the transaction: those calls fail with its error.
            const error = outcome.ok ? new Error('The transaction was rolled back') : outcome.error
            outcomes.fill({ ok: false, error })
            statements.begin.run()
          }
        }
        statements.commit.run()
      } catch (error) {
        if (sqlite.inTransaction) statements.rollback.run()
        rejectAll(items, error)
        return
      }
      settle(items, outcomes)
    },
  }
}
