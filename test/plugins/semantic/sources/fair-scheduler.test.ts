import { describe, expect, it } from 'bun:test'
import { FairScheduler } from '../../../../plugins/semantic/sources/fair-scheduler'

/** Work the test finishes by hand, recording the order in which jobs started. */
function gate() {
  const started: string[] = []
  const open = new Map<string, () => void>()
  const job = (name: string) => () =>
    new Promise<string>((resolve) => {
      started.push(name)
      open.set(name, () => resolve(name))
    })
  const finish = async (name: string) => {
    open.get(name)?.()
    await Bun.sleep(0)
  }
  return { started, job, finish }
}

describe('FairScheduler', () => {
  it("serves accounts in turn: a bystander's query starts before a busy account's queued ones", async () => {
    const scheduler = new FairScheduler({ capacity: 2, perAccount: 2, queuePerAccount: 10 })
    const { started, job, finish } = gate()
    const noisy = ['a1', 'a2', 'a3', 'a4', 'a5'].map((name) => scheduler.run('a', job(name)))
    const bystander = scheduler.run('b', job('b1'))
    await Bun.sleep(0)
    expect(started).toEqual(['a1', 'a2'])
    expect(scheduler.waiting).toBe(4)
    await finish('a1')
    expect(started).toEqual(['a1', 'a2', 'b1'])
    await finish('b1')
    expect(await bystander).toBe('b1')
    await finish('a2')
    expect(started).toEqual(['a1', 'a2', 'b1', 'a3', 'a4'])
    for (const name of ['a3', 'a4', 'a5']) await finish(name)
    expect(await Promise.all(noisy)).toEqual(['a1', 'a2', 'a3', 'a4', 'a5'])
  })

  it("caps an account's running queries, leaving one place for the others by default", async () => {
    const scheduler = new FairScheduler({ capacity: 3, queuePerAccount: 10 })
    const { started, job } = gate()
    for (const name of ['a1', 'a2', 'a3', 'a4']) void scheduler.run('a', job(name))
    await Bun.sleep(0)
    expect(started).toEqual(['a1', 'a2'])
    void scheduler.run('b', job('b1'))
    await Bun.sleep(0)
    expect(started).toEqual(['a1', 'a2', 'b1'])
  })

  it('answers 429 TOO_MANY_QUERIES with Retry-After past the account queue, and other accounts still queue', async () => {
    const scheduler = new FairScheduler({ capacity: 1, perAccount: 1, queuePerAccount: 2 })
    const { job } = gate()
    for (const name of ['a1', 'a2', 'a3']) void scheduler.run('a', job(name))
    await expect(scheduler.run('a', job('a4'))).rejects.toMatchObject({
      status: 429,
      code: 'TOO_MANY_QUERIES',
      retryAfterSeconds: 1,
    })
    void scheduler.run('b', job('b1'))
    expect(scheduler.waiting).toBe(3)
  })

  it('passes a failure of the work to its caller and goes on with the next', async () => {
    const scheduler = new FairScheduler({ capacity: 1, queuePerAccount: 5 })
    const failed = scheduler.run('a', async () => {
      throw new Error('boom')
    })
    const next = scheduler.run('a', async () => 'next')
    await expect(failed).rejects.toThrow('boom')
    expect(await next).toBe('next')
  })
})
