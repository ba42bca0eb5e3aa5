/**
 * Cooperative time slicing for runs. An agent that needs no I/O between its events (the offline analyst with no
 * delay, a fast script) runs a whole answer in one chain of promise callbacks, and the event loop serves no other
 * request until it is done: with a few dozen such runs, a new request waited hundreds of milliseconds for its
 * `__cutoff__`. Runs ask `pause()` between events; once they have used `budgetMs` of the loop since it last served
 * I/O they all wait for its next turn, so requests are served at least every `budgetMs` or so.
 */
export function createLoopBudget(budgetMs: number, now: () => number = () => performance.now()) {
  let sliceStart = now()
  let lastCheck = sliceStart
  let pending: Promise<void> | undefined
  const resume = (resolve: () => void) =>
    setImmediate(() => {
      pending = undefined
      sliceStart = lastCheck = now()
      resolve()
    })
  return {
    /** A promise to wait for when runs have had their share of this turn of the event loop; undefined otherwise. */
    pause(): Promise<void> | undefined {
      if (pending) return pending
      const at = now()
      // A gap since the last check means runs were not using the loop: a new slice starts.
      if (at - lastCheck > budgetMs) sliceStart = at
      lastCheck = at
      if (at - sliceStart < budgetMs) return undefined
      pending = new Promise<void>(resume)
      return pending
    },
  }
}

export type LoopBudget = ReturnType<typeof createLoopBudget>
