import { describe, expect, it } from 'bun:test'
import type { RedisLink } from '../../../../../lib/redis-link'
import { CLAIM, RELEASE_UNREAD } from '../../../../../plugins/chat/registry/redis/redis-scripts'
import {
  RunBoundaries,
  type Claim,
  type UnreadRelease,
} from '../../../../../plugins/chat/registry/redis/run-boundaries'

/** A link that records each script call and answers it with `answer` (by default, 1 for each run). */
function fakeLink(answer?: (args: string[]) => Promise<unknown>) {
  const calls: string[][] = []
  const link = {
    send(command: string, args: string[]) {
      expect(command).toBe('EVAL')
      calls.push(args)
      if (answer) return answer(args)
      const runs = (Number(args[1]) - 1) / (args[0] === CLAIM ? 2 : 3)
      return Promise.resolve(Array.from({ length: runs }, () => 1))
    },
  }
  return { link: link as unknown as RedisLink, calls }
}

const boundaries = (link: RedisLink) =>
  new RunBoundaries({ commands: link, runs: 'runs', leaseMs: 10_000, holdMs: 20_000 })

const claim = (id: string): Claim => ({
  thread: `thread:${id}`,
  message: `message:${id}`,
  record: `{"runId":"${id}"}`,
  runId: id,
  clientMessageId: true,
  sets: { user: 'quota:u:1', key: '' },
  mostPerUser: 4,
  mostPerKey: 1000,
})

const release = (id: string): UnreadRelease => ({
  thread: `thread:${id}`,
  message: `message:${id}`,
  wanted: `wanted:${id}`,
  record: `{"runId":"${id}"}`,
  runId: id,
  sets: { user: 'quota:u:1', key: 'quota:k:7' },
})

describe('the claims and releases of a node, gathered into script calls', () => {
  it('sends those of one turn of the event loop as one call each, the releases first, and answers each its own', async () => {
    const { link, calls } = fakeLink(async (args) => (args[0] === CLAIM ? [1, 0, -1] : [1, 0]))
    const batch = boundaries(link)
    const outcomes = Promise.all([
      batch.claim(claim('a')),
      batch.release(release('x')),
      batch.claim(claim('b')),
      batch.release(release('y')),
      batch.claim(claim('c')),
    ])
    expect(calls).toHaveLength(0)
    expect(await outcomes).toEqual([1, 1, 0, 0, -1])
    expect(calls.map((args) => args[0])).toEqual([RELEASE_UNREAD, CLAIM])
    expect(calls[0].slice(1)).toEqual([
      '7',
      'runs',
      ...['thread:x', 'message:x', 'wanted:x', 'thread:y', 'message:y', 'wanted:y'],
      '20000',
      ...['{"runId":"x"}', 'x', 'quota:u:1', 'quota:k:7', '{"runId":"y"}', 'y', 'quota:u:1', 'quota:k:7'],
    ])
    expect(calls[1].slice(1, 9)).toEqual([
      '7',
      'runs',
      'thread:a',
      'message:a',
      'thread:b',
      'message:b',
      'thread:c',
      'message:c',
    ])
    expect(calls[1].slice(9, 18)).toEqual(['10000', '20000', '{"runId":"a"}', 'a', '1', 'quota:u:1', '4', '', '1000'])
  })

  it('fails every caller of a call that fails, with its error', async () => {
    const error = new Error('NOSCRIPT and then a lost connection')
    const { link } = fakeLink(() => Promise.reject(error))
    const batch = boundaries(link)
    const outcomes = await Promise.allSettled([
      batch.claim(claim('a')),
      batch.claim(claim('b')),
      batch.release(release('x')),
    ])
    expect(outcomes.map((outcome) => (outcome as PromiseRejectedResult).reason)).toEqual([error, error, error])
  })

  it('fails every caller of a call answered with other than one outcome per run', async () => {
    const { link } = fakeLink(async () => [1])
    const batch = boundaries(link)
    const outcomes = await Promise.allSettled([batch.claim(claim('a')), batch.claim(claim('b'))])
    for (const outcome of outcomes) expect(String((outcome as PromiseRejectedResult).reason)).toContain('2 runs')
  })

  it('gathers the claims of one turn of the event loop, awaits within it included, and sends a full batch at once', async () => {
    const { link, calls } = fakeLink()
    const batch = boundaries(link)
    const first = batch.claim(claim('a'))
    await Promise.resolve()
    const second = batch.claim(claim('b'))
    expect(await Promise.all([first, second])).toEqual([1, 1])
    expect(calls).toHaveLength(1)
    // A later turn's claim is a call of its own.
    expect(await batch.claim(claim('c'))).toBe(1)
    expect(calls).toHaveLength(2)

    const many = Array.from({ length: 70 }, (_, index) => batch.claim(claim(`run-${index}`)))
    // The 64th went with the 63 before it at once; the rest waits for the end of the turn.
    expect(calls).toHaveLength(3)
    expect(await Promise.all(many)).toEqual(many.map(() => 1))
    expect(calls.map((args) => (Number(args[1]) - 1) / 2)).toEqual([2, 1, 64, 6])
  })
})
