import { afterEach, describe, expect, it } from 'bun:test'
import { Value } from '@sinclair/typebox/value'
import fc from 'fast-check'
import { StreamLine } from '../../../plugins/chat/model'
import { createScriptedAgent, type Script, type ScriptStep } from '../../../plugins/chat/run/scripted-agent'
import { apiKey, createTestApp } from '../../helpers/app'
import { chatBase, lineReader, mergeLines, messageId, type Line } from '../../helpers/chat'
import { keys } from '../../helpers/fixtures'
import { gate } from '../../helpers/gates'

// FUZZ_SEED replays a failure, PROPERTY_RUNS widens the search; a failure or a timeout prints both.
const SEED = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31))
const RUNS = Number(process.env.PROPERTY_RUNS ?? 40)
const replay = `replay with FUZZ_SEED=${SEED} PROPERTY_RUNS=${RUNS}`
let running = false
// Runs after a timeout too, when fast-check never got to report the seed.
afterEach(() => {
  if (running) console.error(`the run registry property did not finish; ${replay}`)
  running = false
})

const step = fc.oneof(
  fc.record({
    kind: fc.constant('text' as const),
    chunks: fc.array(fc.string({ minLength: 1, maxLength: 12 }), { minLength: 1, maxLength: 4 }),
  }),
  fc.record({
    kind: fc.constant('tool' as const),
    name: fc.constantFrom('serviceMeta', 'serviceSqlApi'),
    input: fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 8 }), { maxKeys: 2 }),
    result: fc.oneof(
      fc.constant({ error: 'boom' }),
      fc.dictionary(fc.string({ maxLength: 5 }), fc.integer(), { maxKeys: 2 }),
    ),
  }),
)

describe('the run registry', () => {
  it('gives every joiner exactly the original sequence, whenever it joins', async () => {
    running = true
    // One app for every run, each run a chat of its own: building an app per run made the property slow enough to
    // time out on a busy machine. The agent plays the script of the current run.
    let script: Script = { steps: [] }
    let turns = 0
    const test = createTestApp({ agents: () => createScriptedAgent(script) })
    const details = await fc
      .check(
        fc.asyncProperty(
          fc.array(step, { minLength: 1, maxLength: 5 }),
          fc.array(fc.nat(5), { maxLength: 4 }),
          async (steps, joinAt) => {
            const gates = steps.map(() => gate())
            const turn = messageId(++turns)
            script = {
              steps: steps.flatMap((s, index): ScriptStep[] => [{ kind: 'wait', until: gates[index].promise }, s]),
            }
            const open = (body: Record<string, unknown>) =>
              test.request('POST', `${chatBase()}/stream-chat-state`, {
                headers: apiKey(keys.admin),
                body: { sessionSettings: { externalId: 'prop' }, ...body },
              })
            const original = lineReader(await open({ input: 'Q', messageId: turn }))
            const first = (await original.next())!
            const chatId = (first.state as { chatId: string }).chatId
            const originalRest = original.rest()
            const joiners: Array<Promise<Line[]>> = []
            for (let index = 0; index <= steps.length; index++) {
              for (const point of joinAt)
                if (Math.min(point, steps.length) === index)
                  joiners.push(open({ chatId, messageId: turn }).then((response) => lineReader(response).rest()))
              // Let the joiners attach before the run moves on.
              await Bun.sleep(0)
              gates[index]?.open()
            }
            const lines = [first, ...(await originalRest)]
            for (const line of lines) expect(Value.Check(StreamLine, line)).toBe(true)
            const sorts = lines.map((line) => line.sort as number).filter((sort) => sort !== undefined)
            for (let index = 1; index < sorts.length; index++)
              expect(sorts[index]).toBeGreaterThanOrEqual(sorts[index - 1])
            expect(lines.at(-1)?.id).toBe('__state__')
            for (const joined of await Promise.all(joiners)) {
              // A joiner that arrives after the run ended gets the stored state instead of the replay.
              if (joined[0].state && (joined[0].state as { isStreaming: boolean }).isStreaming === false) {
                expect(joined.map((line) => line.id)).toEqual(['__cutoff__', '__state__'])
                expect(joined[1]).toEqual(lines.at(-1)!)
              } else expect(joined.slice(1)).toEqual(lines.slice(1))
            }
            // The merged deltas equal what the thread stored.
            const stored = (lines.at(-1)!.state as { messages: Line[] }).messages
            const merged = mergeLines(lines.slice(1, -1))
            expect(merged.map((message) => message.content)).toEqual(stored.map((message) => message.content as string))
          },
        ),
        { numRuns: RUNS, seed: SEED, endOnFailure: true },
      )
      .finally(() => test.close())
    running = false
    if (details.failed)
      throw new Error(
        `failed after ${details.numRuns} runs; ${replay}\ncounterexample: ${fc.stringify(details.counterexample)}\n` +
          (details.errorInstance instanceof Error ? details.errorInstance.stack : String(details.errorInstance)),
      )
    // Forty runs take a second or two alone; a busy machine may need more.
  }, 30_000)
})
