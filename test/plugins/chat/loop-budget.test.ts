import { describe, expect, it } from 'bun:test'
import { createLoopBudget } from '../../../plugins/chat/loop-budget'

describe('createLoopBudget', () => {
  it('lets runs go on until they have used their share of the loop, then makes them all wait for its next turn', async () => {
    let now = 0
    const budget = createLoopBudget(4, () => now)
    expect(budget.pause()).toBeUndefined()
    now = 3
    expect(budget.pause()).toBeUndefined()
    now = 5
    const pause = budget.pause()
    expect(pause).toBeInstanceOf(Promise)
    // Every run asking meanwhile waits for the same turn of the loop.
    expect(budget.pause()).toBe(pause!)
    let resumed = false
    void pause!.then(() => (resumed = true))
    await new Promise((resolve) => setImmediate(resolve))
    await pause
    expect(resumed).toBe(true)
    // A new slice starts after the pause.
    expect(budget.pause()).toBeUndefined()
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
