import { describe, expect, it } from 'bun:test'
import fc from 'fast-check'
import { RunAdmission, TooManyRunsError, type RunTicket } from '../../../../plugins/chat/registry/run-admission'

const limits = { maxRunsPerUser: 1_000, maxRunsPerKey: 1_000, maxActiveRuns: 2, runQueueSize: 1_000 }

/** Admits a run and notes when it is granted its place. */
function admitted(admission: RunAdmission, userId: number, started: number[], signal = new AbortController().signal) {
  const ticket = admission.admit({ userId })
  void ticket.wait(signal).then(() => started.push(userId))
  return ticket
}

describe('RunAdmission', () => {
  it('starts queued runs in the order they came, skipping those released while waiting', async () => {
    const admission = new RunAdmission(limits)
    const started: number[] = []
    const tickets = [1, 2, 3, 4, 5].map((user) => admitted(admission, user, started))
    await Bun.sleep(0)
    expect(started).toEqual([1, 2])
    expect([admission.active, admission.waiting]).toEqual([2, 3])
    tickets[2].release()
    tickets[0].release()
    tickets[0].release()
    await Bun.sleep(0)
    expect(started).toEqual([1, 2, 4])
    expect([admission.active, admission.waiting]).toEqual([2, 1])
  })

  it('resolves the wait of an aborted queued run at once and frees its place in the queue', async () => {
    const admission = new RunAdmission({ ...limits, maxActiveRuns: 1, runQueueSize: 1 })
    const started: number[] = []
    admitted(admission, 1, started)
    const controller = new AbortController()
    const queued = admission.admit({ userId: 2 })
    const waited = queued.wait(controller.signal)
    expect(() => admission.admit({ userId: 3 })).toThrow(TooManyRunsError)
    controller.abort()
    await waited
    expect(admission.waiting).toBe(0)
    admitted(admission, 3, started)
    expect(admission.waiting).toBe(1)
  })

  it('keeps its counts consistent under any order of admissions, aborts and releases', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.record({ admit: fc.integer({ min: 1, max: 4 }) }), fc.record({ release: fc.nat() })), {
          maxLength: 200,
        }),
        (operations) => {
          const admission = new RunAdmission({
            maxRunsPerUser: 3,
            maxRunsPerKey: 1_000,
            maxActiveRuns: 2,
            runQueueSize: 4,
          })
          const live: Array<{ ticket: RunTicket; userId: number }> = []
          const perUser = new Map<number, number>()
          for (const operation of operations) {
            if ('admit' in operation) {
              const userId = operation.admit
              try {
                live.push({ ticket: admission.admit({ userId }), userId })
                perUser.set(userId, (perUser.get(userId) ?? 0) + 1)
              } catch (error) {
                expect(error).toBeInstanceOf(TooManyRunsError)
                expect((error as TooManyRunsError).retryAfterSeconds).toBeGreaterThanOrEqual(1)
                // Refused only over a limit: the user's own, or a full server.
                expect((perUser.get(userId) ?? 0) >= 3 || admission.waiting >= 4).toBe(true)
              }
            } else if (live.length > 0) {
              const [{ ticket, userId }] = live.splice(operation.release % live.length, 1)
              ticket.release()
              perUser.set(userId, perUser.get(userId)! - 1)
            }
            expect(admission.active).toBe(Math.min(2, live.length))
            expect(admission.waiting).toBe(live.length - admission.active)
          }
        },
      ),
      { numRuns: 200 },
    )
  })
})
