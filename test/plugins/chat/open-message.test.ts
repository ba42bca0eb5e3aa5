import { describe, expect, it } from 'bun:test'
import { encodeLine } from '../../../plugins/chat/lines'
import { OpenMessage, OpenMessages, type MessageStorage } from '../../../plugins/chat/open-message'
import { Run } from '../../../plugins/chat/run-registry'
import { createLogger } from '../../../lib/logger'

/** A storage whose commits run when the test says, and fail when it says. */
function manualStorage() {
  const rows = new Map<string, { content: string; status: string }>()
  let queue: Array<{ work: () => unknown; resolve(value: unknown): void; reject(error: unknown): void }> = []
  let failNext = false
  let unreachable = false
  const storage: MessageStorage = {
    saveMessages: (take) =>
      new Promise<unknown>((resolve, reject) => {
        const work = () => {
          // A database that cannot be reached fails the commit before its writes are taken.
          if (unreachable) throw new Error('connection refused')
          const saves = take()
          if (failNext) throw new Error('disk full')
          for (const message of saves) {
            const row = rows.get(message.id)
            rows.set(message.id, { content: (row?.content ?? '') + message.content, status: message.status })
          }
        }
        queue.push({ work, resolve: resolve as never, reject })
      }),
  }
  return {
    storage,
    rows,
    failNextCommit: () => void (failNext = true),
    setUnreachable: (value: boolean) => void (unreachable = value),
    async commit() {
      const items = queue
      queue = []
      for (const item of items) {
        try {
          item.resolve(item.work())
        } catch (error) {
          item.reject(error)
        }
      }
      failNext = false
      await Bun.sleep(0)
    },
  }
}

const newRun = () => new Run({ chatId: 'c', messageId: '1700000000000-message', userId: 1, agentId: 1, threadId: 'c' })
const line = (content: string) =>
  encodeLine({ id: 'a', role: 'assistant', content, isDelta: true, isInProcess: true, sort: 2 })
const newMessage = () => new OpenMessage('c', 'r', 1, 'a', 2, ['final'], undefined, 0)

describe('OpenMessages', () => {
  it('tells a run waiting for its save that it failed when the database cannot be reached at all', async () => {
    const { storage, rows, commit, setUnreachable } = manualStorage()
    const messages = new OpenMessages(storage, () => 0, createLogger('silent'))
    const run = newRun()
    const message = newMessage()
    message.appendText('Alpha ')
    messages.append(run, message, line('Alpha '))
    setUnreachable(true)
    const saved = messages.whenSaved(run)
    await commit()
    expect(await saved).toBe(false)
    expect(await messages.whenSaved(run)).toBe(false)
    expect(run.published).toBe(0)
    // Once it answers again, the retry stores the lines and sends them.
    setUnreachable(false)
    await Bun.sleep(1100)
    await commit()
    expect(run.published).toBe(1)
    expect(rows.get('a')?.content).toBe('Alpha ')
    messages.close()
  })

  it('sends a line only once the message it shows is committed, and appends what was streamed since', async () => {
    const { storage, rows, commit } = manualStorage()
    const messages = new OpenMessages(storage, () => 0, createLogger('silent'))
    const run = newRun()
    const message = newMessage()
    for (const delta of ['Alpha ', 'beta ']) {
      message.appendText(delta)
      messages.append(run, message, line(delta))
    }
    expect(run.published).toBe(0)
    await commit()
    expect(run.published).toBe(2)
    expect(rows.get('a')?.content).toBe('Alpha beta ')

    message.appendText('gamma')
    messages.append(run, message, line('gamma'))
    expect(run.published).toBe(2)
    await commit()
    expect(run.published).toBe(3)
    expect(rows.get('a')?.content).toBe('Alpha beta gamma')
  })

  it('holds the lines of a failed save and sends them once a retry stores them', async () => {
    const { storage, rows, commit, failNextCommit } = manualStorage()
    const messages = new OpenMessages(storage, () => 0, createLogger('silent'))
    const run = newRun()
    const message = newMessage()
    message.appendText('Alpha ')
    messages.append(run, message, line('Alpha '))
    await commit()
    message.appendText('beta')
    messages.append(run, message, line('beta'))
    failNextCommit()
    await commit()
    expect(run.published).toBe(1)
    expect(rows.get('a')?.content).toBe('Alpha ')

    // The next change (or the retry timer) saves the held content with it.
    message.appendText('!')
    messages.append(run, message, line('!'))
    await commit()
    expect(run.published).toBe(3)
    expect(rows.get('a')?.content).toBe('Alpha beta!')
    messages.close()
  })

  it('tells a run whether its staged lines are stored, and lets it drop those that are not', async () => {
    const { storage, commit, failNextCommit } = manualStorage()
    const messages = new OpenMessages(storage, () => 0, createLogger('silent'))
    const run = newRun()
    const message = newMessage()
    expect(await messages.whenSaved(run)).toBe(true)
    message.appendText('Alpha ')
    messages.append(run, message, line('Alpha '))
    const first = messages.whenSaved(run)
    await commit()
    expect(await first).toBe(true)

    message.appendText('beta')
    messages.append(run, message, line('beta'))
    const second = messages.whenSaved(run)
    failNextCommit()
    await commit()
    expect(await second).toBe(false)
    // Still failing until a save succeeds: asked again, it answers at once.
    expect(await messages.whenSaved(run)).toBe(false)
    run.discardUnpublished()
    expect(run.lines).toHaveLength(1)
    expect(run.published).toBe(1)
    messages.close()
  })
})
