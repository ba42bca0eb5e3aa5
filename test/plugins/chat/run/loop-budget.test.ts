import { describe, expect, it } from 'bun:test'
import { createLoopBudget } from '../../../../plugins/chat/run/loop-budget'

const nextTurn = () => new Promise((resolve) => setImmediate(resolve))

/** A budget of 4 ms whose runs have used 5 ms of the loop without a gap. */
function spentBudget() {
  const clock = { now: 0 }
  const budget = createLoopBudget(4, () => clock.now)
  for (const at of [0, 3, 5]) {
    clock.now = at
    if (at < 5) expect(budget.pause()).toBeUndefined()
  }
  return { budget, clock }
}

describe('createLoopBudget', () => {
  it('lets runs go on until they have used their share of the loop, then makes them wait for a later turn', async () => {
    let now = 0
    const budget = createLoopBudget(4, () => now)
    expect(budget.pause()).toBeUndefined()
    now = 3
    expect(budget.pause()).toBeUndefined()
    now = 5
    const pause = budget.pause()
    expect(pause).toBeInstanceOf(Promise)
    let resumed = false
    void pause!.then(() => (resumed = true))
    await pause
    expect(resumed).toBe(true)
    // A new slice starts after the pause.
    expect(budget.pause()).toBeUndefined()
  })

  it('resumes waiting runs one per turn of the event loop, in the order they stopped', async () => {
    const { budget } = spentBudget()
    const order: number[] = []
    const pauses = [0, 1, 2].map((index) => budget.pause()!.then(() => order.push(index)))
    expect(budget.waiting).toBe(3)
    await nextTurn()
    expect(order).toEqual([0])
    await nextTurn()
    expect(order).toEqual([0, 1])
    await Promise.all(pauses)
    expect(order).toEqual([0, 1, 2])
    expect(budget.waiting).toBe(0)
  })

  it('gives the run it resumes a fresh slice while the others still wait', async () => {
    const { budget, clock } = spentBudget()
    const first = budget.pause()!
    const second = budget.pause()!
    await first
    // The resumed run goes on within its slice; the second is still waiting.
    clock.now = 7
    expect(budget.pause()).toBeUndefined()
    expect(budget.waiting).toBe(1)
    await second
    expect(budget.waiting).toBe(0)
  })

  it('starts a new slice after a gap in which no run asked (the loop was serving something else)', () => {
    let now = 0
    const budget = createLoopBudget(4, () => now)
    expect(budget.pause()).toBeUndefined()
    now = 100
    expect(budget.pause()).toBeUndefined()
    now = 103
    expect(budget.pause()).toBeUndefined()
  })
})
