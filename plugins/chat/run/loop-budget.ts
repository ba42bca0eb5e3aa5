/**
 * Cooperative time slicing for runs. An agent that needs no I/O between its events (the offline analyst with no
 * delay, a fast script) runs a whole answer in one chain of promise callbacks, and the event loop serves no other
 * request until it is done: with a few dozen such runs, a new request waited hundreds of milliseconds for its
 * `__cutoff__`. Runs ask `pause()` between events and between their own steps of work; once they have used
 * `budgetMs` of the loop since it last served I/O, they wait.
 *
 * Waiting runs go on one per turn of the event loop, in the order they stopped, each with a fresh slice. Resuming
 * them all at once let every one of them run its next step before any could stop again: with 32 analyst runs that
 * was one 20 to 40 ms stretch without I/O, which a new request's `__cutoff__` waited out.
 */
export function createLoopBudget(budgetMs: number, now: () => number = () => performance.now()) {
  let sliceStart = now()
  let lastCheck = sliceStart
  const waiting: Array<() => void> = []
  let scheduled = false
  const resumeNext = () => {
    scheduled = false
    const resume = waiting.shift()
    sliceStart = lastCheck = now()
    if (waiting.length > 0) schedule()
    resume?.()
  }
  const schedule = () => {
    if (scheduled) return
    scheduled = true
    setImmediate(resumeNext)
  }
  const wait = () =>
    new Promise<void>((resolve) => {
      waiting.push(resolve)
      schedule()
    })
  return {
    /** A promise to wait for when runs have had their share of this turn of the event loop; undefined otherwise. */
    pause(): Promise<void> | undefined {
      const at = now()
      // A gap since the last check means runs were not using the loop: a new slice starts.
      if (at - lastCheck > budgetMs) sliceStart = at
      lastCheck = at
      if (at - sliceStart < budgetMs) return undefined
      return wait()
    },
    /** Runs waiting for their turn (tests). */
    get waiting(): number {
      return waiting.length
    },
  }
}

export type LoopBudget = ReturnType<typeof createLoopBudget>
