import { describe, expect, it } from 'bun:test'
import { encodeLine } from '../../../../plugins/chat/stream/lines'
import { OpenMessage, OpenMessages, type MessageStorage } from '../../../../plugins/chat/run/open-message'
import { Run } from '../../../../plugins/chat/registry/run'
import { createLogger } from '../../../../lib/logger'

/** A storage whose commits run when the test says, and fail when it says. */
function manualStorage() {
  const rows = new Map<string, { content: string; status: string }>()
  let queue: Array<{ work: () => unknown; resolve(value: unknown): void; reject(error: unknown): void }> = []
  let failNext = false
  let unreachable = false
  let attempts = 0
  /** The lease epoch of each thread, as storage holds it (1 unless a test moves it on). */
  const epochs = new Map<string, number>()
  const storage: MessageStorage = {
    saveMessages: (take) =>
      new Promise<ReadonlySet<string>>((resolve, reject) => {
        const work = () => {
          attempts++
          // A database that cannot be reached fails the commit before its writes are taken, as Bun's driver does.
          if (unreachable)
            throw Object.assign(new Error('connection refused'), { code: 'ERR_POSTGRES_CONNECTION_REFUSED' })
          const saves = take()
          if (failNext) throw new Error('disk full')
          const refused = new Set<string>()
          for (const message of saves) {
            if ((epochs.get(message.threadId) ?? 1) !== message.epoch) {
              refused.add(message.threadId)
              continue
            }
            const row = rows.get(message.id)
            rows.set(message.id, { content: (row?.content ?? '') + message.content, status: message.status })
          }
          return refused
        }
        queue.push({ work, resolve: resolve as never, reject })
      }),
  }
  return {
    storage,
    rows,
    failNextCommit: () => void (failNext = true),
    /** Another node takes the thread over: its lease epoch moves on. */
    takeOver: (threadId: string) => void epochs.set(threadId, (epochs.get(threadId) ?? 1) + 1),
    setUnreachable: (value: boolean) => void (unreachable = value),
    /** Commits tried so far. */
    attempts: () => attempts,
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

const newRun = (threadId = 'c') =>
  new Run({ chatId: threadId, messageId: '1700000000000-message', userId: 1, agentId: 1, threadId })
const line = (content: string) =>
  encodeLine({ id: 'a', role: 'assistant', content, isDelta: true, isInProcess: true, sort: 2 })
const newMessage = (run = newRun(), id = 'a') => new OpenMessage(run, 'r', 1, id, 2, ['final'], undefined, 0)

describe('OpenMessages', () => {
  it('tells a run waiting for its save that it failed when the database cannot be reached at all', async () => {
    const { storage, rows, commit, setUnreachable } = manualStorage()
    const messages = new OpenMessages(storage, () => 0, createLogger('silent'))
    const run = newRun()
    const message = newMessage(run)
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

  it('waits for its retry while the database cannot be reached, and warns once for the outage', async () => {
    const { storage, rows, commit, setUnreachable, attempts } = manualStorage()
    const logged: Array<{ level: string; msg: string }> = []
    const logger = createLogger('info', {}, (text) => void logged.push(JSON.parse(text)))
    const messages = new OpenMessages(storage, () => 0, logger)
    const run = newRun()
    const message = newMessage(run)
    setUnreachable(true)
    // A run streaming 50 tokens while the database is down.
    for (let index = 0; index < 50; index++) {
      message.appendText(`${index} `)
      messages.append(run, message, line(`${index} `))
      await commit()
    }
    expect(attempts()).toBe(1)
    expect(logged.filter((entry) => entry.level === 'warn')).toHaveLength(1)
    expect(run.published).toBe(0)
    setUnreachable(false)
    await Bun.sleep(1100)
    await commit()
    expect(attempts()).toBe(2)
    expect(run.published).toBe(50)
    expect(rows.get('a')?.content.split(' ')).toHaveLength(51)
    expect(logged.at(-1)).toMatchObject({ level: 'info', msg: 'chat messages are saved again', failedSaves: 1 })
    messages.close()
  })

  it('sends a line only once the message it shows is committed, and appends what was streamed since', async () => {
    const { storage, rows, commit } = manualStorage()
    const messages = new OpenMessages(storage, () => 0, createLogger('silent'))
    const run = newRun()
    const message = newMessage(run)
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
    const message = newMessage(run)
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
    const message = newMessage(run)
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

  it('stops a run whose save storage refused: its lines of that save are never sent, and nothing more is written', async () => {
    const { storage, rows, commit, takeOver } = manualStorage()
    const messages = new OpenMessages(storage, () => 0, createLogger('silent'))
    const run = newRun('c')
    const bystander = newRun('other')
    const message = newMessage(run)
    const other = newMessage(bystander, 'b')
    message.appendText('Alpha ')
    messages.append(run, message, line('Alpha '))
    await commit()
    expect(run.published).toBe(1)

    // Another node takes the thread over; the run's next save is refused, the bystander's in the same one is not.
    takeOver('c')
    message.appendText('beta')
    messages.append(run, message, line('beta'))
    other.appendText('Kept')
    messages.append(bystander, other, line('Kept'))
    const saved = messages.whenSaved(run)
    await commit()
    expect(await saved).toBe(false)
    expect(run.fenced).toBeDefined()
    expect(run.signal.aborted).toBe(true)
    expect(run.lines).toHaveLength(1)
    expect(run.published).toBe(1)
    expect(rows.get('a')?.content).toBe('Alpha ')
    expect(bystander.published).toBe(1)
    expect(rows.get('b')?.content).toBe('Kept')

    // Whatever the run still stages is neither saved nor sent.
    message.appendText('gamma')
    messages.append(run, message, line('gamma'))
    messages.touch(other)
    await commit()
    expect(run.published).toBe(1)
    expect(rows.get('a')?.content).toBe('Alpha ')
    expect(await messages.whenSaved(run)).toBe(false)
    messages.close()
  })
})
