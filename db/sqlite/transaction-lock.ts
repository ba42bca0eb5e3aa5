/**
 * Turns on one SQLite connection: an asynchronous transaction holds the connection from BEGIN to COMMIT across its
 * awaits, so another transaction or a group commit must wait for it rather than begin inside it. First come, first
 * served.
 */
export function createTransactionLock() {
  let tail: Promise<void> = Promise.resolve()
  let holders = 0
  return {
    /** Runs `work` when every earlier holder has finished. */
    run<T>(work: () => Promise<T> | T): Promise<T> {
      holders++
      const result = tail.then(work)
      const release = () => {
        holders--
      }
      tail = result.then(release, release)
      return result
    },
    /** Whether a holder is running or waiting. */
    busy: () => holders > 0,
    /** Settles when every holder so far has finished. */
    idle: (): Promise<void> => tail,
  }
}

export type TransactionLock = ReturnType<typeof createTransactionLock>
