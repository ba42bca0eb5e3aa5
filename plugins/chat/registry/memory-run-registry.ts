import { Run } from './run'
import { whenIdle, type RunRegistry, type RunStart } from './run-registry'

const messageKey = (userId: number, agentId: number, messageId: string) => `${userId}:${agentId}:${messageId}`

/** The registry of one process: runs live in its memory only. */
export class MemoryRunRegistry implements RunRegistry {
  readonly shared = false
  private readonly byChat = new Map<string, Run>()
  private readonly byUserMessage = new Map<string, Run>()
  private readonly idle = new Set<() => void>()

  get size(): number {
    return this.byChat.size
  }

  get readerCount(): number {
    let total = 0
    for (const run of this.byChat.values()) total += run.readerCount
    return total
  }

  async forChat(chatId: string): Promise<Run | undefined> {
    return this.byChat.get(chatId)
  }

  async forMessage(userId: number, agentId: number, messageId: string): Promise<Run | undefined> {
    return this.byUserMessage.get(messageKey(userId, agentId, messageId))
  }

  // One process: the admission has checked the run limits already.
  async start({ clientMessageId, limits: _limits, ...key }: RunStart): Promise<Run | undefined> {
    const userKey = messageKey(key.userId, key.agentId, key.messageId)
    // A busy thread, or the client's message already running (in a thread of its own): the caller joins or refuses.
    if (this.byChat.has(key.chatId) || (clientMessageId && this.byUserMessage.has(userKey))) return undefined
    const run = new Run(key)
    this.byChat.set(key.chatId, run)
    this.byUserMessage.set(userKey, run)
    return run
  }

  end(run: Run): void {
    run.finish()
    if (this.byChat.get(run.key.chatId) === run) this.byChat.delete(run.key.chatId)
    const userKey = messageKey(run.key.userId, run.key.agentId, run.key.messageId)
    if (this.byUserMessage.get(userKey) === run) this.byUserMessage.delete(userKey)
    if (this.byChat.size === 0) for (const resolve of this.idle) resolve()
  }

  async abort(chatId: string, reason: string): Promise<boolean> {
    const run = this.byChat.get(chatId)
    run?.abort(reason)
    return run !== undefined
  }

  abortAll(reason: string): void {
    for (const run of this.byChat.values()) run.abort(reason)
  }

  whenIdle(timeoutMs: number): Promise<void> {
    return whenIdle(this.idle, () => this.byChat.size, timeoutMs)
  }

  async check(): Promise<void> {}

  async close(): Promise<void> {}
}
