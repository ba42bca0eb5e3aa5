import { asStorageUnavailable } from '../../../db/storage-errors'
import type { chatMessages } from '../../../db/schema'
import type { Logger } from '../../../lib/logger'
import type { EncodedLine } from '../stream/lines'
import type { ThreadMessage, ToolCall } from '../model'
import { LEASE_LOST_MESSAGE, type Run } from '../registry/run'
import type { MessageSave } from '../../../db/repositories/threads'

export type MessageStatus = (typeof chatMessages.$inferSelect)['status']

/**
 * An assistant message of a running turn, as the run holds it in memory, with what of it the database does not
 * have yet. The run changes it; `OpenMessages` saves it.
 */
export class OpenMessage {
  /**
   * The content as streamed, in pieces, joined when read: a string grown by `+=` is a chain of rope nodes, each
   * several times an array slot, and a held run keeps its whole answer until it ends.
   */
  private pieces: string[] = []
  /** The thinking as the model sent it; read through `thinking`, where a surrogate pair split between deltas is whole. */
  private rawThinking = ''
  status: MessageStatus = 'in_process'
  /** Whether the message has a row yet; once it has, a save appends the content streamed since the last one. */
  saved = false
  /** The content streamed since the last save (kept as pieces: joining a long answer at every save is churn). */
  unsaved: string[] = []
  /** Builds this message's delta lines (made at the first delta). */
  delta?: (content: string) => EncodedLine
  /**
   * A high surrogate that ended the last text delta, held until the next one: a character outside the BMP split
   * between two deltas is one character, not two U+FFFD.
   */
  heldSurrogate = ''

  constructor(
    /** The run writing it: once that is fenced, nothing of the message is written any more. */
    readonly run: Run,
    readonly runId: string,
    /** The run's lease epoch, which every save of the message carries. */
    readonly epoch: number,
    readonly id: string,
    readonly sort: number,
    public graphPath: readonly string[],
    public toolCall: ToolCall | undefined,
    readonly createdAt: number,
  ) {}

  get threadId(): string {
    return this.run.key.threadId
  }

  get content(): string {
    if (this.pieces.length > 1) this.pieces = [this.pieces.join('')]
    return this.pieces[0] ?? ''
  }

  get thinking(): string {
    return storableText(this.rawThinking)
  }

  appendThinking(delta: string): void {
    this.rawThinking += delta
  }

  appendText(delta: string): void {
    this.pieces.push(delta)
    if (this.saved) this.unsaved.push(delta)
  }

  /** The content the next save writes: all of it for a new row, else what was streamed since the last save. */
  contentToSave(): string {
    return this.saved ? this.unsaved.join('') : this.content
  }

  /** The message as the next save writes it (taken inside the commit). */
  toSave(now: number): MessageSave {
    return {
      threadId: this.threadId,
      id: this.id,
      sort: this.sort,
      content: this.contentToSave(),
      thinking: this.thinking || null,
      graphPath: JSON.stringify(this.graphPath),
      toolCall: this.toolCall ? JSON.stringify(this.toolCall) : null,
      status: this.status,
      runId: this.runId,
      createdAt: this.createdAt,
      updatedAt: now,
      epoch: this.epoch,
    }
  }

  /**
   * The message in its wire shape, exactly as the thread store maps it once saved (same fields, same order), so
   * `__state__` can be built without reading the thread back.
   */
  toThreadMessage(devMode: boolean): ThreadMessage {
    const mapped: ThreadMessage = {
      id: this.id,
      role: 'assistant',
      content: this.content,
      isDelta: false,
      isInProcess: this.status === 'in_process',
      sort: this.sort,
    }
    mapped.graphPath = [...this.graphPath]
    if (this.toolCall) mapped.toolCall = { ...this.toolCall }
    if (devMode && this.thinking) mapped.thinking = this.thinking
    if (this.status === 'interrupted') mapped.interrupted = true
    return mapped
  }
}

/** What `OpenMessages` needs from storage. */
export interface MessageStorage {
  /**
   * Writes, in the next group commit, the messages `take` returns when that commit runs (each inserted the first
   * time, its new content appended after); settles once that is committed, with the threads whose messages storage
   * refused (their run's lease epoch is stale: another node took the thread over).
   */
  saveMessages(take: () => MessageSave[]): Promise<ReadonlySet<string>>
}

/** One group commit's share of the messages: what it saved, and how far each run's log may then be sent. */
interface Save {
  /** Whether the commit got as far as writing it. */
  written: boolean
  messages: OpenMessage[]
  /** Each message's save state before the write, put back if the commit fails. */
  before: Array<{ saved: boolean; unsaved: string[] }>
  runs: Run[]
  /** Each run's log length when the save was written: every line up to it shows only what was saved. */
  lengths: number[]
}

const RETRY_MS = 1000
/** While the database stays unreachable, one warning this often says saves still fail (the first says it at once). */
const OUTAGE_LOG_EVERY_MS = 30_000

/**
 * The save state of every open assistant message, and the rule that a line goes to clients only once what it shows
 * is durable. A run stages each line in its log and marks the message it shows as changed; the changed messages are
 * written in the next group commit (shared with every other write of that turn of the event loop, the runs' starts
 * and ends included), and once it is committed each run's log is published up to where it stood at the write. A
 * client therefore never sees a line a crash could take back, and a turn still costs no commit of its own per line:
 * a fast agent's burst of lines is one write, and concurrent runs share one commit.
 */
export class OpenMessages {
  private readonly changed = new Set<OpenMessage>()
  private readonly waiting = new Set<Run>()
  /** Callers of `whenSaved`, per run: told whether the save covering the run's log was committed. */
  private readonly watchers = new Map<Run, Array<(saved: boolean) => void>>()
  /** Runs whose last save failed, until one succeeds. */
  private readonly failing = new Set<Run>()
  private queued = false
  private retry: ReturnType<typeof setTimeout> | undefined
  /**
   * The database did not answer the last save: changes wait for the retry timer instead of each trying again at
   * once (a streaming run changes its message with every token, which made an attempt and a warning each).
   */
  private waitForRetry = false
  /** Since when the database has not answered, how many saves failed meanwhile, and when that was last logged. */
  private unreachable: { since: number; failures: number; loggedAt: number } | undefined

  constructor(
    private readonly storage: MessageStorage,
    private readonly clock: () => number,
    private readonly logger: Logger,
  ) {}

  /** Adds `line` to the run's log; its readers get it once the change to `message` it shows is committed. */
  append(run: Run, message: OpenMessage, line: EncodedLine): void {
    run.stage(line)
    this.waiting.add(run)
    this.touch(message)
  }

  /** Marks `message` changed: the next group commit saves it. */
  touch(message: OpenMessage): void {
    this.changed.add(message)
    this.schedule()
  }

  private schedule(): void {
    if (this.queued || this.waitForRetry || this.changed.size === 0) return
    this.queued = true
    const save: Save = { written: false, messages: [], before: [], runs: [], lengths: [] }
    this.storage
      .saveMessages(() => this.write(save))
      .then(
        (refused) => this.saved(save, refused),
        (error: unknown) => this.failed(save, error),
      )
  }

  /**
   * Whether everything the run staged so far is stored: true once a commit covers its whole log, false at the first
   * save that fails while it waits (the retry goes on, but a run ending now must not send what is not stored).
   */
  whenSaved(run: Run): Promise<boolean> {
    if (run.fenced !== undefined) return Promise.resolve(false)
    if (run.published >= run.lines.length) return Promise.resolve(true)
    if (this.failing.has(run)) return Promise.resolve(false)
    return new Promise((resolve) => {
      const watchers = this.watchers.get(run)
      if (watchers) watchers.push(resolve)
      else this.watchers.set(run, [resolve])
    })
  }

  private tell(run: Run, saved: boolean): void {
    const watchers = this.watchers.get(run)
    if (!watchers || (saved && run.published < run.lines.length)) return
    this.watchers.delete(run)
    for (const watcher of watchers) watcher(saved)
  }

  /** Stops retrying failed saves (shutdown); runs still waiting for one are told it did not happen. */
  close(): void {
    clearTimeout(this.retry)
    for (const run of [...this.watchers.keys()]) this.tell(run, false)
  }

  /**
   * Inside the commit: takes every changed message as it stands, for the commit to write, and notes how far each
   * waiting run's log is covered. The messages count as saved from here on (a change made before the commit settles
   * goes into the next save); a failed commit puts their state back.
   */
  private write(save: Save): MessageSave[] {
    this.queued = false
    save.written = true
    const now = this.clock()
    const rows: MessageSave[] = []
    for (const message of this.changed) {
      // A fenced run writes nothing more: what it still had to save is dropped with its unsent lines.
      if (message.run.fenced !== undefined) continue
      rows.push(message.toSave(now))
      save.messages.push(message)
      save.before.push({ saved: message.saved, unsaved: message.unsaved })
      message.saved = true
      message.unsaved = []
    }
    for (const run of this.waiting) {
      // Its staged lines were dropped, and a run waiting for them is told now: no save covers them any more.
      if (run.fenced !== undefined) {
        this.tell(run, false)
        continue
      }
      save.runs.push(run)
      save.lengths.push(run.lines.length)
    }
    this.changed.clear()
    this.waiting.clear()
    return rows
  }

  private saved(save: Save, refused: ReadonlySet<string>): void {
    if (this.unreachable) {
      const { since, failures } = this.unreachable
      this.unreachable = undefined
      this.logger.info('chat messages are saved again', { failedSaves: failures, ms: this.clock() - since })
    }
    for (let index = 0; index < save.runs.length; index++) {
      const run = save.runs[index]
      this.failing.delete(run)
      // Refused: another node holds the thread. The run stops, and its lines of the refused save are never sent.
      if (refused.has(run.key.threadId)) run.fence(LEASE_LOST_MESSAGE)
      if (run.fenced !== undefined) {
        this.tell(run, false)
        continue
      }
      run.publish(save.lengths[index])
      this.tell(run, true)
    }
    // A run whose refused messages came without lines (its close, say) is stopped all the same.
    if (refused.size > 0)
      for (const message of save.messages) if (refused.has(message.threadId)) message.run.fence(LEASE_LOST_MESSAGE)
  }

  /** Nothing of the save is stored: its messages stay changed, its lines unsent, and it is tried again. */
  private failed(save: Save, error: unknown): void {
    const down = asStorageUnavailable(error)
    if (!down) this.logger.error('chat messages could not be saved; retrying', { error })
    else {
      const now = this.clock()
      const outage = (this.unreachable ??= { since: now, failures: 0, loggedAt: Number.NEGATIVE_INFINITY })
      outage.failures++
      if (now - outage.loggedAt >= OUTAGE_LOG_EVERY_MS) {
        outage.loggedAt = now
        this.logger.warn('chat messages could not be saved; retrying', {
          reason: down.reason,
          failedSaves: outage.failures,
        })
      }
    }
    if (!save.written) this.queued = false
    save.messages.forEach((message, index) => {
      const before = save.before[index]
      message.saved = before.saved
      if (before.saved) message.unsaved = [...before.unsaved, ...message.unsaved]
      this.changed.add(message)
    })
    for (const run of save.runs) this.waiting.add(run)
    // A save that failed before its write (no connection to the database) covered no run yet: every run waiting for
    // one is told, or a run ending during an outage would wait for it until the database came back.
    for (const run of save.written ? save.runs : this.waiting) {
      this.failing.add(run)
      this.tell(run, false)
    }
    clearTimeout(this.retry)
    // Unreachable: every change waits for this retry. Another failure: the next change tries again at once.
    this.waitForRetry = down !== undefined
    this.retry = setTimeout(() => {
      this.waitForRetry = false
      this.schedule()
    }, RETRY_MS)
    this.retry.unref?.()
  }
}

/**
 * A model's text as storage holds it, so clients see what is stored: U+FFFD in place of the NUL character (Postgres
 * cannot store NUL in text, and a save holding one failed over and over, holding back the lines of every run saved
 * with it) and of a lone surrogate (UTF-8 has none: storage wrote U+FFFD, while the stream had sent the surrogate).
 */
export function storableText(text: string): string {
  const wellFormed = text.isWellFormed() ? text : text.toWellFormed()
  return wellFormed.includes('\u0000') ? wellFormed.replaceAll('\u0000', '\uFFFD') : wellFormed
}
