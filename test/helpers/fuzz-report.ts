import { afterEach } from 'bun:test'
import fc from 'fast-check'
import { describeRequest, type HostileRequest } from './hostile-requests'

const messageOf = (error: unknown) => (error instanceof Error ? (error.stack ?? error.message) : String(error))

/**
 * Failure reports a CI log can replay: every failure of a fuzz test (a failed property, a failed check after it,
 * a request without an answer, a timeout) names the seed and run counts to replay it with, and the request it was
 * about, its credentials shown by form only. fast-check's own report would print the counterexample with its
 * credentials, and a timeout would print nothing at all.
 */
export function fuzzReport(seed: number, runs: Record<string, number>) {
  const inFlight = new Set<HostileRequest>()
  let running: string | undefined
  // Moves on when a test times out: bun:test does not stop its body, so its properties stop at their next run.
  let generation = 0
  const replay = `replay with FUZZ_SEED=${seed} ${Object.entries(runs)
    .map(([name, count]) => `${name}=${count}`)
    .join(' ')}`

  // Runs after a timeout too, when the test body never got to report anything.
  afterEach(() => {
    if (running === undefined) return
    const pending = [...inFlight].map(describeRequest).join('\n  ')
    console.error(`fuzz test "${running}" did not finish; ${replay}; requests in flight:\n  ${pending || '(none)'}`)
    running = undefined
    generation++
    inFlight.clear()
  })

  return {
    /** Runs a test body; whatever it throws is reported with the seed. */
    async run(name: string, body: () => Promise<void>): Promise<void> {
      running = name
      try {
        await body()
      } catch (error) {
        throw new Error(`fuzz test "${name}" failed; ${replay}\n${messageOf(error)}`)
      } finally {
        // A body abandoned after its timeout may end during the next test: that test's state stays.
        if (running === name) {
          running = undefined
          inFlight.clear()
        }
      }
    },

    /** Sends one request, remembered while it is in flight; a request that gets no answer names itself. */
    async send(request: HostileRequest, send: (request: HostileRequest) => Promise<Response>): Promise<Response> {
      inFlight.add(request)
      try {
        return await send(request)
      } catch (error) {
        throw new Error(`no answer to ${describeRequest(request)}: ${messageOf(error)}`)
      } finally {
        inFlight.delete(request)
      }
    },

    /** `fc.assert` with this seed, reporting the counterexample through `show` (which leaves secrets out). */
    async assert<T>(
      arbitrary: fc.Arbitrary<T>,
      predicate: (value: T) => Promise<void>,
      numRuns: number,
      show: (value: T) => string,
    ): Promise<void> {
      const started = generation
      const property = fc.asyncProperty(arbitrary, async (value) => {
        if (generation !== started) throw new Error('abandoned: the test timed out')
        await predicate(value)
      })
      const details = await fc.check(property, { numRuns, seed, endOnFailure: true })
      if (!details.failed) return
      const example = details.counterexample ? show(details.counterexample[0]) : '(none)'
      throw new Error(
        `property failed after ${details.numRuns} runs (path ${details.counterexamplePath})\n` +
          `counterexample: ${example}\n${messageOf(details.errorInstance)}`,
      )
    },
  }
}
