import { asStorageUnavailable } from '../../../db/storage-errors'
import type { Logger } from '../../../lib/logger'
import { AgentError, type Agent, type AgentEvent, type AgentTurn } from './agent'
import { deltaLines, encodeLine, errorLine, stateLine } from '../stream/lines'
import type { MessageLine, ThreadMessage, ToolCall } from '../model'
import type { LoopBudget } from './loop-budget'
import { OpenMessage, storableText, type MessageStatus, type OpenMessages } from './open-message'
import { LEASE_LOST_MESSAGE, type Run } from '../registry/run'
import { type RunRegistry } from '../registry/run-registry'
import type { RunOutcome, ThreadStore } from '../../../db/repositories/threads'

/** What every run of the service shares. */
export interface RunServices {
  store: Pick<ThreadStore, 'endRun'>
  /** Saves the runs' messages and sends their lines once saved. */
  messages: OpenMessages
  registry: RunRegistry
  logger: Logger
  /** Between events a run waits when runs have held the event loop long enough. */
  budget: LoopBudget
  clock(): number
  /** Told how the run ended: `interrupted` when it was fenced (another node took its thread over). */
  onEnd(outcome: RunOutcome | 'interrupted'): void
}

/** One turn to run. */
export interface RunContext {
  run: Run
  runId: string
  agent: Agent
  turn: Omit<AgentTurn, 'signal'>
  firstSort: number
  /** The user message of this turn, as stored: `__state__` is the history, this message and the run's messages. */
  userMessage: ThreadMessage
  /** The lease epoch the turn's start got: every write of the run carries it (see `StartedTurn.epoch`). */
  epoch: number
}

class ProtocolError extends Error {}

/** The answer's messages could not be stored: the run ends with an error instead of lines storage does not hold. */
const UNSAVED_ANSWER = 'The answer could not be saved; please try again'

class UnsavedAnswer extends Error {
  constructor() {
    super(UNSAVED_ANSWER)
  }
}

/** Storage refused the run's end: another node took the thread over (see `Run.fence`). */
class EndRefused extends Error {}

/**
 * Drives one agent turn: each agent event becomes a change to an in-memory message and a stream line appended to the
 * run's log, sent once the change is saved (`OpenMessages`). The run ends with `__state__` (the whole thread) or with
 * one error line; on abort or failure the unfinished messages keep their partial content, marked interrupted. No
 * database call is awaited per line. A stuck agent cannot hold an abort: every step races the run's signal.
 */
export function executeRun(services: RunServices, context: RunContext): Promise<void> {
  return new Execution(services, context).execute()
}

/**
 * The state of one running turn, as a class rather than closures: ten thousand held runs are ten thousand of these,
 * and methods on a prototype cost nothing per run where each closure costs a function and a scope.
 */
class Execution {
  private readonly open = new Map<string, OpenMessage>()
  /** Every message of this run, in order. */
  private readonly messages: OpenMessage[] = []
  private sort: number
  private outcome: RunOutcome = 'completed'
  /** Whether the run ended fenced (see `stopFenced`). */
  private fencedEnd = false
  /** Rejects the step in progress (set while a step is awaited). */
  private failStep: ((reason: unknown) => void) | undefined
  private readonly onAbort = () => this.failStep?.(this.context.run.signal.reason)

  constructor(
    private readonly services: RunServices,
    private readonly context: RunContext,
  ) {
    this.sort = context.firstSort
  }

  async execute(): Promise<void> {
    const { run, turn, runId } = this.context
    try {
      const iterator = this.context.agent
        .run({ ...turn, signal: run.signal, pause: this.services.budget.pause })
        [Symbol.asyncIterator]()
      // Each step races the run's signal through one listener for the whole run (an AbortSignal listener added and
      // removed per step would cost more than a fast step itself).
      run.signal.addEventListener('abort', this.onAbort, { once: true })
      try {
        for (;;) {
          const pause = this.services.budget.pause()
          if (pause) await pause
          const next = await this.step(iterator)
          if (next.done) break
          this.handle(next.value)
        }
      } finally {
        this.failStep = undefined
        run.signal.removeEventListener('abort', this.onAbort)
        if (run.signal.aborted) void iterator.return?.()?.catch(() => {})
      }
      // An agent that forgets to close a message still leaves a complete thread.
      if (!(await this.close('complete', 'completed'))) throw new EndRefused()
      // The end is stored; the answer's last lines must be too before `__state__` sends them.
      if (!(await this.services.messages.whenSaved(run))) throw run.fenced ? new EndRefused() : new UnsavedAnswer()
      // The thread as it now stands in the database, without reading it back: this run is its only writer.
      const thread = [
        ...turn.history,
        this.context.userMessage,
        ...this.messages.map((message) => message.toThreadMessage(turn.devMode)),
      ]
      run.append(encodeLine(stateLine(thread)))
    } catch (error) {
      if (run.fenced !== undefined || error instanceof EndRefused) return this.stopFenced()
      const aborted = run.signal.aborted
      const unavailable = asStorageUnavailable(error)
      this.outcome = aborted ? 'aborted' : 'failed'
      let message: string
      if (aborted) message = run.abortReason ?? 'Run aborted'
      else if (error instanceof UnsavedAnswer) message = error.message
      else if (error instanceof AgentError) {
        message = error.message
        // The model provider failed, or the turn ran out of time: worth an operator's look, but no bug of ours. The
        // message is the one the user got, without the provider's URL, key or body.
        this.services.logger.warn('chat run ended with an agent error', {
          runId,
          chatId: run.key.chatId,
          reason: message,
        })
      } else if (unavailable) {
        // The database went away while the answer was stored: an outage, not a bug, and the answer is not saved.
        message = UNSAVED_ANSWER
        this.services.logger.warn('chat run could not be saved: the database does not answer', {
          runId,
          reason: unavailable.reason,
        })
      } else {
        message = 'The agent failed to answer; please try again'
        this.services.logger.error('chat run failed', { runId, chatId: run.key.chatId, error })
      }
      const closed = await this.close('interrupted', this.outcome, message).catch((failure: unknown) => {
        const down = asStorageUnavailable(failure)
        if (down) this.services.logger.warn('chat run end could not be stored', { runId, reason: down.reason })
        else this.services.logger.error('chat run end could not be stored', { runId, error: failure })
      })
      if (closed === false || run.fenced !== undefined) return this.stopFenced()
      // Lines whose messages could not be saved are not sent: the client sees what storage holds, then the error.
      if (!(await this.services.messages.whenSaved(run))) run.discardUnpublished()
      run.append(encodeLine(errorLine(message)))
    } finally {
      this.services.registry.end(run)
      this.services.onEnd(this.fencedEnd ? 'interrupted' : this.outcome)
    }
  }

  /**
   * The end of a run another node took over: it writes nothing more (the thread is as that node leaves it, the run
   * stored as it marked it), sends no line its joiners elsewhere did not get, and tells its own readers with one
   * error line: why it was aborted, when a client aborted it first (the other node then ended it as aborted, with
   * that reason), else that its node lost its hold on it.
   */
  private stopFenced(): void {
    const { run, runId } = this.context
    run.fence(LEASE_LOST_MESSAGE)
    this.fencedEnd = true
    this.services.logger.warn('chat run stopped: another node took its thread over', {
      runId,
      chatId: run.key.chatId,
      reason: run.fenced,
    })
    run.append(encodeLine(errorLine(run.abortReason ?? LEASE_LOST_MESSAGE)))
  }

  private step(iterator: AsyncIterator<AgentEvent>): Promise<IteratorResult<AgentEvent>> {
    const { signal } = this.context.run
    return new Promise<IteratorResult<AgentEvent>>((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason)
      this.failStep = reject
      iterator.next().then(resolve, reject)
    })
  }

  private begin(id: string, graphPath: readonly string[], toolCall?: ToolCall): OpenMessage {
    const { run, runId } = this.context
    const message = new OpenMessage(
      run,
      runId,
      this.context.epoch,
      id,
      this.sort++,
      graphPath,
      toolCall,
      this.services.clock(),
    )
    this.open.set(id, message)
    this.messages.push(message)
    return message
  }

  /**
   * Marks every unfinished message `status` and saves them with the end of the run, in one group commit. A run cut
   * short between messages still has an unfinished answer: its last message is marked interrupted too. Resolves
   * false when storage refused the end: the run is fenced.
   */
  private async close(
    status: Exclude<MessageStatus, 'in_process'>,
    outcome: RunOutcome,
    error?: string,
  ): Promise<boolean> {
    const { messages, store } = this.services
    for (const message of this.open.values()) {
      message.status = status
      messages.touch(message)
    }
    this.open.clear()
    const last = this.messages[this.messages.length - 1]
    if (outcome !== 'completed' && last) {
      last.status = 'interrupted'
      messages.touch(last)
    }
    const ended = await store.endRun(this.context.runId, this.context.epoch, outcome, error)
    if (!ended) this.context.run.fence(LEASE_LOST_MESSAGE)
    return ended
  }

  /** Appends the line showing `message` as it now stands; it goes out once that is saved. */
  private emit(message: OpenMessage, line: MessageLine): void {
    this.services.messages.append(this.context.run, message, encodeLine(line))
  }

  private appendText(message: OpenMessage, delta: string): void {
    message.appendText(delta)
    message.delta ??= deltaLines(message)
    this.services.messages.append(this.context.run, message, message.delta(delta))
  }

  private base(message: OpenMessage) {
    return { id: message.id, role: 'assistant' as const, sort: message.sort, graphPath: [...message.graphPath] }
  }

  private get(event: Extract<AgentEvent, { id: string }>): OpenMessage {
    const message = this.open.get(event.id)
    if (!message) throw new ProtocolError(`agent sent ${event.type} for unknown message ${event.id}`)
    return message
  }

  private handle(event: AgentEvent): void {
    const { turn, run } = this.context
    run.activity++
    switch (event.type) {
      case 'progress':
        return
      case 'message-start': {
        if (this.open.has(event.id)) throw new ProtocolError(`agent started message ${event.id} twice`)
        const message = this.begin(event.id, event.graphPath)
        this.emit(message, { ...this.base(message), content: '', isDelta: false, isInProcess: true })
        return
      }
      case 'text-delta': {
        const message = this.get(event)
        // The delta itself, not a copy joined to an empty string: a held run keeps every delta it streamed.
        let text = event.delta
        if (message.heldSurrogate) {
          text = message.heldSurrogate + text
          message.heldSurrogate = ''
        }
        if (endsWithHighSurrogate(text)) {
          message.heldSurrogate = text.slice(-1)
          text = text.slice(0, -1)
        }
        if (text === '') return
        this.appendText(message, storableText(text))
        return
      }
      case 'thinking-delta': {
        if (turn.devMode) this.get(event).appendThinking(event.delta)
        return
      }
      case 'message-end': {
        const message = this.get(event)
        // A high surrogate no low one followed is a lone one: it goes out as storage keeps it.
        if (message.heldSurrogate) {
          message.heldSurrogate = ''
          this.appendText(message, '\uFFFD')
        }
        if (event.graphPath) message.graphPath = event.graphPath
        message.delta = undefined
        this.open.delete(event.id)
        message.status = 'complete'
        const line: MessageLine = { ...this.base(message), content: '', isDelta: true, isInProcess: false }
        if (turn.devMode && message.thinking) line.thinking = message.thinking
        this.emit(message, line)
        return
      }
      case 'tool-call': {
        if (this.open.has(event.id)) throw new ProtocolError(`agent reused message id ${event.id}`)
        const toolCall: ToolCall = { name: event.name, input: event.input }
        const message = this.begin(event.id, event.graphPath ?? ['analyst', 'tools'], toolCall)
        run.toolsRunning++
        this.emit(message, { ...this.base(message), content: '', isDelta: false, isInProcess: true, toolCall })
        return
      }
      case 'tool-result': {
        const message = this.get(event)
        if (!message.toolCall) throw new ProtocolError(`agent sent a tool result for text message ${event.id}`)
        message.toolCall = { ...message.toolCall, result: event.result }
        if (this.open.delete(event.id)) run.toolsRunning--
        message.status = 'complete'
        this.emit(message, {
          ...this.base(message),
          content: '',
          isDelta: false,
          isInProcess: false,
          toolCall: message.toolCall,
        })
        return
      }
    }
  }
}

function endsWithHighSurrogate(text: string): boolean {
  const last = text.charCodeAt(text.length - 1)
  return last >= 0xd800 && last <= 0xdbff
}
