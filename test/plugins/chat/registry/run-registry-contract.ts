import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import fc from 'fast-check'
import { encodedLine } from '../../../../plugins/chat/stream/lines'
import { ndjsonStream } from '../../../../plugins/chat/stream/run-readers'
import type { Run } from '../../../../plugins/chat/registry/run'
import type { RunRegistry, RunStart } from '../../../../plugins/chat/registry/run-registry'

/** Two nodes of one deployment: two registries on one Redis, or the same in-memory registry twice. */
export interface RegistryNodes {
  a: RunRegistry
  b: RunRegistry
  close(): Promise<void>
}

// FUZZ_SEED replays a failure, PROPERTY_RUNS widens the search.
const SEED = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31))
const RUNS = Number(process.env.PROPERTY_RUNS ?? 25)

let runs = 0
/** A run of its own thread (unique ids, so the cases never meet). */
export function newRun(userId = 1): RunStart {
  const id = `${Date.now()}-${++runs}-${Math.random().toString(36).slice(2, 8)}`
  return {
    chatId: `chat-${id}`,
    threadId: `chat-${id}`,
    messageId: `${1700000000000 + runs}-message`,
    userId,
    agentId: 1,
    runId: `run-${id}`,
  }
}

/** Everything a client reading `run` from now on receives, as text lines. */
export async function readRun(run: Run): Promise<string[]> {
  const text = await new Response(ndjsonStream({ head: [], run }, 1_000_000)).text()
  return text.split('\n').filter((line) => line !== '')
}

const line = (content: string) => encodedLine(JSON.stringify({ id: 'm', role: 'assistant', content, isDelta: true }))

/**
 * The behaviour every run registry shares: the contract the chat relies on, run against each implementation.
 * `open` gives two nodes of one deployment; with the in-memory registry both are the same process.
 */
export function runRegistryContract(name: string, open: () => Promise<RegistryNodes>) {
  describe(`the ${name} run registry`, () => {
    let nodes: RegistryNodes
    beforeAll(async () => {
      nodes = await open()
    })
    afterAll(async () => {
      await nodes.close()
    })

    it('finds an active run by chatId and by messageId on every node, until it ends', async () => {
      const { a, b } = nodes
      const key = newRun(7)
      const run = (await a.start(key))!
      expect(run.key.chatId).toBe(key.chatId)
      for (const node of [a, b]) {
        expect((await node.forChat(key.chatId))?.key).toEqual(run.key)
        expect((await node.forMessage(7, 1, key.messageId))?.key).toEqual(run.key)
        // Another user's or another agent's messageId is not this run.
        expect(await node.forMessage(8, 1, key.messageId)).toBeUndefined()
        expect(await node.forMessage(7, 2, key.messageId)).toBeUndefined()
      }
      expect(a.size).toBe(1)
      a.end(run)
      await settle(async () => (await b.forChat(key.chatId)) === undefined)
      for (const node of [a, b]) {
        expect(await node.forChat(key.chatId)).toBeUndefined()
        expect(await node.forMessage(7, 1, key.messageId)).toBeUndefined()
      }
      expect(a.size).toBe(0)
    })

    it('refuses a second run on a busy thread on every node, and takes one again once the run ended', async () => {
      const { a, b } = nodes
      const key = newRun()
      const run = (await a.start(key))!
      expect(run).toBeDefined()
      expect(await a.start({ ...key, runId: 'other-1', messageId: '1700000000001-message' })).toBeUndefined()
      expect(await b.start({ ...key, runId: 'other-2', messageId: '1700000000002-message' })).toBeUndefined()
      a.end(run)
      await settle(async () => (await b.forChat(key.chatId)) === undefined)
      const next = await b.start({ ...key, runId: 'other-3', messageId: '1700000000003-message' })
      expect(next).toBeDefined()
      b.end(next!)
    })

    it('refuses a run for a message already running in another thread, on every node, and finds the running one', async () => {
      const { a, b } = nodes
      const key = { ...newRun(9), clientMessageId: true }
      const run = (await a.start(key))!
      // Two nodes given the same new message at once each open a thread of their own: only the first may run it.
      for (const node of [a, b]) {
        expect(await node.start({ ...key, chatId: `${key.chatId}-elsewhere`, runId: 'other-4' })).toBeUndefined()
        expect((await node.forMessage(9, 1, key.messageId))?.key).toEqual(run.key)
      }
      // An id the server made up for a message without one may repeat within a millisecond: that run may start.
      const repeated = await b.start({ ...newRun(9), messageId: key.messageId, clientMessageId: false })
      expect(repeated).toBeDefined()
      b.end(repeated!)
      a.end(run)
      await settle(async () => (await b.forMessage(9, 1, key.messageId)) === undefined)
    })

    it('stops a run when any node aborts it, with the reason, and answers false for a thread without one', async () => {
      const { a, b } = nodes
      const key = newRun()
      const run = (await a.start(key))!
      const aborted = new Promise<unknown>((resolve) =>
        run.signal.addEventListener('abort', () => resolve(run.signal.reason)),
      )
      expect(await b.abort(key.chatId, 'Run aborted')).toBe(true)
      expect(((await aborted) as Error).message).toBe('Run aborted')
      expect(run.abortReason).toBe('Run aborted')
      a.end(run)
      await settle(async () => (await b.forChat(key.chatId)) === undefined)
      expect(await b.abort(key.chatId, 'Run aborted')).toBe(false)
      expect(await a.abort('no-such-chat', 'Run aborted')).toBe(false)
    })

    it('aborts every run of a node and resolves whenIdle once they ended', async () => {
      const { a } = nodes
      const first = (await a.start(newRun()))!
      const second = (await a.start(newRun()))!
      a.abortAll('The server is shutting down')
      expect(first.signal.aborted && second.signal.aborted).toBe(true)
      const idle = a.whenIdle(10_000)
      a.end(first)
      a.end(second)
      await idle
      expect(a.size).toBe(0)
    })

    it('gives every joiner on another node the whole run when several look it up before any of them reads', async () => {
      // As requests do: each finds the run, then awaits something else (a flush of the storage's writes) before it
      // starts reading, so several may hold the run they found before the first of them reads it.
      const { a, b } = nodes
      const key = newRun()
      const run = (await a.start(key))!
      run.append(line('one'))
      const found = [
        await b.forChat(key.chatId),
        await b.forMessage(key.userId, key.agentId, key.messageId),
        await b.forChat(key.chatId),
      ]
      const reads = found.map((each) => readRun(each!))
      run.append(line('two'))
      a.end(run)
      for (const read of reads) expect(await read).toEqual([line('one').json, line('two').json])
    })

    it('gives every joiner exactly the original sequence, on any node, whenever it joins', async () => {
      const { a, b } = nodes
      const details = await fc.check(
        fc.asyncProperty(
          fc.array(fc.array(fc.string({ unit: 'binary', maxLength: 12 }), { minLength: 1, maxLength: 4 }), {
            minLength: 1,
            maxLength: 6,
          }),
          fc.array(fc.tuple(fc.nat(6), fc.boolean(), fc.boolean()), { maxLength: 5 }),
          async (batches, joins) => {
            const key = newRun()
            const run = (await a.start(key))!
            const original = readRun(run)
            const joiners: Array<Promise<string[] | undefined>> = []
            for (let index = 0; index <= batches.length; index++) {
              for (const [at, onB, byMessage] of joins) {
                if (Math.min(at, batches.length) !== index) continue
                const node = onB ? b : a
                const found = byMessage
                  ? await node.forMessage(key.userId, key.agentId, key.messageId)
                  : await node.forChat(key.chatId)
                joiners.push(found ? readRun(found) : Promise.resolve(undefined))
              }
              const batch = batches[index]
              if (!batch) break
              // Staged lines are not sent before they are published; a batch is published at once.
              for (const content of batch) run.stage(line(content))
              await Bun.sleep(0)
              run.publish(run.lines.length)
            }
            a.end(run)
            const sent = await original
            expect(sent).toEqual(batches.flat().map((content) => line(content).json))
            for (const joined of await Promise.all(joiners)) expect(joined).toEqual(sent)
          },
        ),
        { numRuns: RUNS, seed: SEED, endOnFailure: true },
      )
      if (details.failed)
        throw new Error(
          `failed after ${details.numRuns} runs; replay with FUZZ_SEED=${SEED} PROPERTY_RUNS=${RUNS}\n` +
            `counterexample: ${fc.stringify(details.counterexample)}\n${String(details.errorInstance)}`,
        )
    }, 60_000)
  })
}

/** Waits (bounded) until `done` holds: what one node did reaches the others a moment later. */
export async function settle(done: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`not settled within ${timeoutMs} ms`)
    await Bun.sleep(5)
  }
}
