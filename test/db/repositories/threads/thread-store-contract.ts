import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import {
  MessageStored,
  type MessageSave,
  type NewTurn,
  type RunOutcome,
  type ThreadStore,
} from '../../../../db/repositories/threads'
import type { ThreadStoreHarness } from '../../../helpers/thread-stores'

let sequence = 0
const unique = (prefix: string) => `${prefix}-${Date.now()}-${++sequence}`

/**
 * The behaviour every ThreadStore implementation shares, run against each (SQLite in the fast tier, Postgres in the
 * slow one when a server is available): the chat service relies on exactly this.
 */
export function threadStoreContract(name: string, open: () => Promise<ThreadStoreHarness>) {
  describe(`ThreadStore on ${name}`, () => {
    let harness: ThreadStoreHarness
    let store: ThreadStore
    let now = 1_700_000_000_000
    const clock = () => now
    beforeAll(async () => {
      harness = await open()
      store = harness.store(clock)
      // A throwaway database server may take a while to start on a busy machine.
    }, 120_000)
    afterAll(async () => {
      await store?.flushWrites()
      await harness?.close()
    })

    const turn = (overrides: Partial<NewTurn> = {}): NewTurn => ({
      thread: { id: unique('thread'), ...harness.owner },
      isNewThread: true,
      runId: unique('run'),
      messageId: unique('message'),
      branch: 'main',
      input: 'How many orders last week?',
      images: undefined,
      devMode: false,
      ...overrides,
    })
    const answer = (started: NewTurn, overrides: Partial<MessageSave> = {}): MessageSave => ({
      threadId: started.thread.id,
      id: unique('answer'),
      sort: 2,
      content: 'There were ',
      thinking: null,
      graphPath: JSON.stringify(['final']),
      toolCall: null,
      status: 'in_process',
      runId: started.runId,
      createdAt: now,
      updatedAt: now,
      // A new thread's first run has lease epoch 1.
      epoch: 1,
      ...overrides,
    })

    it('starts a turn on a new thread: the thread, its run and the user message are stored together', async () => {
      const first = turn({ images: [{ mimeType: 'image/png', data: 'aGk=' }] })
      const started = await store.startTurn(first)
      expect(started.history).toEqual([])
      expect(started.nextSort).toBe(2)
      expect(started.userMessage).toMatchObject({ id: first.messageId, role: 'user', sort: 1, isInProcess: false })
      expect(await store.thread(first.thread.id)).toEqual(first.thread)
      const messages = await store.messages(first.thread.id, false)
      expect(messages).toEqual([started.userMessage])
      expect(messages[0].images).toEqual([{ mimeType: 'image/png', data: 'aGk=' }])
      expect(await harness.run(first.runId)).toMatchObject({ status: 'running', endedAt: null })
    })

    it('creates a thread without messages, whose first turn starts in it with the lease epoch raised', async () => {
      const thread = { id: unique('thread'), ...harness.owner }
      await store.createThread(thread)
      expect(await store.thread(thread.id)).toEqual(thread)
      expect(await store.messages(thread.id, false)).toEqual([])
      const first = turn({ thread, isNewThread: false })
      const started = await store.startTurn(first)
      expect(started.history).toEqual([])
      expect(started.userMessage).toMatchObject({ id: first.messageId, role: 'user', sort: 1 })
      expect(started.epoch).toBe(2)
      expect(await store.messages(thread.id, false)).toEqual([started.userMessage])
    })

    it('returns the history before the turn, and continues the sort after the last message', async () => {
      const first = turn()
      await store.startTurn(first)
      await store.saveMessages(() => [
        answer(first, { id: 'a1', content: 'Forty.', status: 'complete', thinking: 'counting' }),
      ])
      await store.endRun(first.runId, 1, 'completed', undefined)
      const second = turn({ thread: first.thread, isNewThread: false, input: 'And the week before?' })
      const started = await store.startTurn(second)
      expect(started.history.map((message) => [message.role, message.sort, message.content])).toEqual([
        ['user', 1, 'How many orders last week?'],
        ['assistant', 2, 'Forty.'],
      ])
      expect(started.history[1].thinking).toBeUndefined()
      expect(started.userMessage.sort).toBe(3)
      expect(started.nextSort).toBe(4)
      expect(started.epoch).toBe(2)
      const third = turn({ thread: first.thread, isNewThread: false, devMode: true })
      expect(await store.endRun(second.runId, started.epoch, 'completed', undefined)).toBe(true)
      expect((await store.startTurn(third)).history[1].thinking).toBe('counting')
    })

    it('inserts an answer at its first save and appends what was streamed at the next ones', async () => {
      const first = turn()
      await store.startTurn(first)
      const id = unique('answer')
      await store.saveMessages(() => [answer(first, { id, content: 'There were ' })])
      let [, saved] = await store.messages(first.thread.id, false)
      expect(saved).toMatchObject({ id, content: 'There were ', isInProcess: true, graphPath: ['final'] })
      const toolCall = JSON.stringify({ name: 'query', input: 'orders', result: '40' })
      await store.saveMessages(() => [
        answer(first, { id, content: '40 orders.', status: 'complete', toolCall, graphPath: '["analyst","final"]' }),
      ])
      ;[, saved] = await store.messages(first.thread.id, false)
      expect(saved).toMatchObject({
        content: 'There were 40 orders.',
        isInProcess: false,
        graphPath: ['analyst', 'final'],
        toolCall: { name: 'query', input: 'orders', result: '40' },
      })
      expect(saved.interrupted).toBeUndefined()
    })

    it('takes the messages to save when the commit runs, not when the save is asked for', async () => {
      const first = turn()
      await store.startTurn(first)
      let content = 'early'
      const saving = store.saveMessages(() => [answer(first, { id: 'late', content })])
      content = 'late'
      await saving
      expect((await store.messages(first.thread.id, false))[1].content).toBe('late')
      await store.saveMessages(() => [])
    })

    it('finds a user message by id only for its own user and agent', async () => {
      const first = turn()
      await store.startTurn(first)
      const { userId, agentId } = harness.owner
      expect(await store.threadOfUserMessage(userId, agentId, first.messageId)).toBe(first.thread.id)
      expect(await store.threadOfUserMessage(harness.otherUserId, agentId, first.messageId)).toBeUndefined()
      expect(await store.threadOfUserMessage(userId, agentId + 1000, first.messageId)).toBeUndefined()
      await store.saveMessages(() => [answer(first, { id: 'assistant-id' })])
      expect(await store.threadOfUserMessage(userId, agentId, 'assistant-id')).toBeUndefined()
      expect(await store.thread('no-such-thread')).toBeUndefined()
      expect(await store.messages('no-such-thread', false)).toEqual([])
    })

    it('refuses a new thread whose start checks its message when the user has it already, naming that thread', async () => {
      const first = turn()
      await store.startTurn(first)
      // Queued together, in one commit: the refused start fails alone, and writes nothing.
      const again = turn({ messageId: first.messageId, checkMessage: true })
      const otherUser = turn({
        thread: { id: unique('thread'), ...harness.owner, userId: harness.otherUserId },
        messageId: first.messageId,
        checkMessage: true,
      })
      const unchecked = turn({ messageId: first.messageId })
      const [refused, ...started] = await Promise.allSettled([
        store.startTurn(again),
        store.startTurn(otherUser),
        store.startTurn(unchecked),
      ])
      expect(refused.status).toBe('rejected')
      const reason = (refused as PromiseRejectedResult).reason
      expect(reason).toBeInstanceOf(MessageStored)
      expect((reason as MessageStored).threadId).toBe(first.thread.id)
      expect(await store.thread(again.thread.id)).toBeUndefined()
      expect(await harness.run(again.runId)).toBeUndefined()
      // Another user's message of the same id, and a start that does not check, start as before.
      expect(started.map((outcome) => outcome.status)).toEqual(['fulfilled', 'fulfilled'])
      expect((await store.thread(otherUser.thread.id))?.userId).toBe(harness.otherUserId)
    })

    it('saves many answers of one commit, each with its own content, refusing only the stale ones', async () => {
      const turns = Array.from({ length: 19 }, () => turn())
      await Promise.all(turns.map((started) => store.startTurn(started)))
      const refused = await store.saveMessages(() =>
        turns.map((started, index) =>
          answer(started, { content: `answer ${index} ${'x'.repeat(index * 500)}`, epoch: index === 11 ? 7 : 1 }),
        ),
      )
      expect([...refused]).toEqual([turns[11].thread.id])
      for (const [index, started] of turns.entries()) {
        const stored = await store.messages(started.thread.id, false)
        if (index === 11) expect(stored).toHaveLength(1)
        else expect(stored[1].content).toBe(`answer ${index} ${'x'.repeat(index * 500)}`)
      }
    })

    it('ends a run with its outcome, error and time', async () => {
      for (const [outcome, error] of [
        ['completed', undefined],
        ['failed', 'The agent failed'],
        ['aborted', 'Run aborted'],
      ] as Array<[RunOutcome, string | undefined]>) {
        const started = turn()
        await store.startTurn(started)
        now += 1000
        expect(await store.endRun(started.runId, 1, outcome, error)).toBe(true)
        expect(await harness.run(started.runId)).toEqual({ status: outcome, error: error ?? null, endedAt: now })
      }
    })

    it('commits writes queued together, and a failing write fails only its own caller', async () => {
      const first = turn()
      await store.startTurn(first)
      // Queued in one turn of the event loop: one commit. The duplicate user message id fails alone.
      const duplicate = store.startTurn(turn({ thread: first.thread, isNewThread: false, messageId: first.messageId }))
      const fine = turn()
      let taken = 0
      const others = [
        store.startTurn(fine),
        store.saveMessages(() => {
          taken++
          return [answer(first, { id: 'saved-once', content: 'Once.' })]
        }),
        store.endRun(first.runId, 1, 'completed', undefined),
      ]
      expect(duplicate).rejects.toThrow()
      await duplicate.catch(() => undefined)
      await Promise.all(others)
      expect(await store.thread(fine.thread.id)).toEqual(fine.thread)
      expect((await harness.run(first.runId))?.status).toBe('completed')
      // The messages to save are taken once, whatever the commit had to do again.
      expect(taken).toBe(1)
      const messages = await store.messages(first.thread.id, false)
      expect(messages.map((message) => [message.role, message.content])).toEqual([
        ['user', 'How many orders last week?'],
        ['assistant', 'Once.'],
      ])
    })

    it('settles a write only once it is committed, and flushWrites commits what is queued', async () => {
      const first = turn()
      let settled = false
      const starting = store.startTurn(first).then(() => (settled = true))
      await store.flushWrites()
      expect(await store.thread(first.thread.id)).toEqual(first.thread)
      await starting
      expect(settled).toBe(true)
      // Nothing queued: settles at once.
      await store.flushWrites()
    })

    it('marks runs left running, and their unfinished answers, interrupted when a new process recovers', async () => {
      const cut = turn()
      await store.startTurn(cut)
      const earlier = answer(cut, { id: 'tool', sort: 2, content: '', status: 'complete' })
      const last = answer(cut, { id: 'text', sort: 3, content: 'Half an answ', status: 'in_process' })
      await store.saveMessages(() => [earlier, last])
      const between = turn()
      await store.startTurn(between)
      await store.saveMessages(() => [answer(between, { id: 'done-tool', status: 'complete' })])
      const finished = turn()
      await store.startTurn(finished)
      await store.saveMessages(() => [answer(finished, { id: 'whole', content: 'Done.', status: 'complete' })])
      await store.endRun(finished.runId, 1, 'completed', undefined)

      now += 5000
      expect(await harness.store(clock).recoverInterruptedRuns()).toBeGreaterThanOrEqual(2)
      expect(await harness.run(cut.runId)).toEqual({
        status: 'interrupted',
        error: 'Interrupted by a server restart',
        endedAt: now,
      })
      const [, tool, text] = await store.messages(cut.thread.id, false)
      expect(tool.interrupted).toBeUndefined()
      expect(text).toMatchObject({ content: 'Half an answ', isInProcess: false, interrupted: true })
      // A run cut between messages: its last (complete) message is marked, so the answer shows as cut short.
      expect((await store.messages(between.thread.id, false))[1].interrupted).toBe(true)
      expect((await harness.run(between.runId))?.status).toBe('interrupted')
      expect((await store.messages(finished.thread.id, false))[1].interrupted).toBeUndefined()
      expect((await harness.run(finished.runId))?.status).toBe('completed')
      expect(await harness.store(clock).recoverInterruptedRuns()).toBe(0)
    })

    it('refuses the writes of a run another node interrupted in its place: the thread stays as that node left it', async () => {
      const cut = turn()
      const started = await store.startTurn(cut)
      expect(started.epoch).toBe(1)
      await store.saveMessages(() => [answer(cut, { id: 'half', content: 'Half an answ' })])
      const bystander = turn()
      await store.startTurn(bystander)

      // The owner stopped renewing its lease: another node marks its run interrupted.
      now += 1000
      expect(await harness.interrupt(cut.runId, now)).toBe(true)
      const leftBy = await store.messages(cut.thread.id, false)
      const runLeft = await harness.run(cut.runId)
      expect(runLeft).toMatchObject({ status: 'interrupted', endedAt: now })

      // The owner wakes: its saves of that thread, appends and new messages alike, are refused; another run's in the
      // same commit are written.
      now += 1000
      const refused = await store.saveMessages(() => [
        answer(cut, { id: 'half', content: 'er.', status: 'complete' }),
        answer(cut, { id: 'next', sort: 3, content: 'More.', status: 'complete' }),
        answer(bystander, { id: 'kept', content: 'Kept.' }),
      ])
      expect([...refused]).toEqual([cut.thread.id])
      expect(await store.endRun(cut.runId, started.epoch, 'aborted', 'Run aborted')).toBe(false)
      expect(await store.messages(cut.thread.id, false)).toEqual(leftBy)
      expect(leftBy[1]).toMatchObject({ content: 'Half an answ', interrupted: true })
      expect(await harness.run(cut.runId)).toEqual(runLeft)
      expect((await store.messages(bystander.thread.id, false))[1].content).toBe('Kept.')
      expect(await store.endRun(bystander.runId, 1, 'completed', undefined)).toBe(true)
      // Interrupting it again changes nothing: it has ended.
      expect(await harness.interrupt(cut.runId, now)).toBe(false)
    })

    it("refuses the writes of a run once a later turn started on its thread, and takes the later run's", async () => {
      const earlier = turn()
      await store.startTurn(earlier)
      const later = turn({ thread: earlier.thread, isNewThread: false, input: 'And now?' })
      const started = await store.startTurn(later)
      expect(started.epoch).toBe(2)
      expect(await store.saveMessages(() => [answer(earlier, { id: 'stale', sort: 3 })])).toEqual(
        new Set([earlier.thread.id]),
      )
      expect(await store.endRun(earlier.runId, 1, 'completed', undefined)).toBe(false)
      expect(await harness.run(earlier.runId)).toMatchObject({ status: 'running' })
      const saved = await store.saveMessages(() => [
        answer(later, { id: 'fresh', sort: 3, content: 'Now.', status: 'complete', epoch: started.epoch }),
      ])
      expect(saved.size).toBe(0)
      expect(await store.endRun(later.runId, started.epoch, 'completed', undefined)).toBe(true)
      expect((await store.messages(earlier.thread.id, false)).map((message) => message.id)).toEqual([
        earlier.messageId,
        later.messageId,
        'fresh',
      ])
    })

    it('refuses the writes of a run the recovery at start marked interrupted', async () => {
      const cut = turn()
      await store.startTurn(cut)
      await store.saveMessages(() => [answer(cut, { id: 'cut', content: 'Cut' })])
      await harness.store(clock).recoverInterruptedRuns()
      expect(await store.saveMessages(() => [answer(cut, { id: 'cut', content: ' more' })])).toEqual(
        new Set([cut.thread.id]),
      )
      expect(await store.endRun(cut.runId, 1, 'completed', undefined)).toBe(false)
      expect((await store.messages(cut.thread.id, false))[1]).toMatchObject({ content: 'Cut', interrupted: true })
    })
  })
}
