import type { Logger } from '../../src/logger'
import { abortable } from './abortable'
import { AgentError, type Agent, type AgentEvent, type AgentTurn } from './agent'
import { encodeLine, errorLine, stateLine } from './lines'
import type { MessageLine, ToolCall } from './model'
import type { Run, RunRegistry } from './run-registry'
import type { ThreadStore } from './thread-store'

/** A message the run has started and not finished yet. */
export interface OpenMessage {
  threadId: string
  id: string
  sort: number
  graphPath: readonly string[]
  content: string
  thinking: string
  toolCall?: ToolCall
}

export type RunOutcome = 'completed' | 'failed' | 'aborted'

export interface RunContext {
  run: Run
  runId: string
  agent: Agent
  turn: Omit<AgentTurn, 'signal'>
  firstSort: number
  store: ThreadStore
  registry: RunRegistry
  logger: Logger
  /** In-process messages whose partial content the checkpointer saves. */
  dirty: Set<OpenMessage>
  onEnd(outcome: RunOutcome): void
}

class ProtocolError extends Error {}

/**
 * Drives one agent turn: each agent event becomes stream lines appended to the run's log and, when a message
 * starts or ends, a database write. The run ends with `__state__` (the whole thread, read back from the database)
 * or with one error line; on abort or failure the unfinished messages keep their partial content, marked
 * interrupted. A stuck agent cannot hold an abort: every step races the run's signal.
 */
export async function executeRun(context: RunContext): Promise<void> {
  const { run, runId, store, turn, dirty } = context
  const threadId = run.key.threadId
  const open = new Map<string, OpenMessage>()
  let sort = context.firstSort
  const emit = (line: MessageLine) => run.append(encodeLine(line))
  const base = (message: OpenMessage) => ({ id: message.id, role: 'assistant' as const, sort: message.sort, graphPath: [...message.graphPath] })

  const get = (event: AgentEvent): OpenMessage => {
    const message = open.get(event.id)
    if (!message) throw new ProtocolError(`agent sent ${event.type} for unknown message ${event.id}`)
    return message
  }

  const handle = (event: AgentEvent) => {
    switch (event.type) {
      case 'message-start': {
        if (open.has(event.id)) throw new ProtocolError(`agent started message ${event.id} twice`)
        const message: OpenMessage = { threadId, id: event.id, sort: sort++, graphPath: event.graphPath, content: '', thinking: '' }
        open.set(event.id, message)
        store.startAssistantMessage(threadId, runId, { id: message.id, sort: message.sort, graphPath: [...message.graphPath] })
        emit({ ...base(message), content: '', isDelta: false, isInProcess: true })
        return
      }
      case 'text-delta': {
        const message = get(event)
        if (event.delta === '') return
        message.content += event.delta
        dirty.add(message)
        emit({ ...base(message), content: event.delta, isDelta: true, isInProcess: true })
        return
      }
      case 'thinking-delta': {
        if (turn.devMode) get(event).thinking += event.delta
        return
      }
      case 'message-end': {
        const message = get(event)
        if (event.graphPath) message.graphPath = event.graphPath
        open.delete(event.id)
        dirty.delete(message)
        store.completeAssistantMessage(threadId, message.id, message.content, message.thinking, {
          graphPath: event.graphPath ? [...event.graphPath] : undefined,
        })
        const line: MessageLine = { ...base(message), content: '', isDelta: true, isInProcess: false }
        if (turn.devMode && message.thinking) line.thinking = message.thinking
        emit(line)
        return
      }
      case 'tool-call': {
        if (open.has(event.id)) throw new ProtocolError(`agent reused message id ${event.id}`)
        const toolCall: ToolCall = { name: event.name, input: event.input }
        const message: OpenMessage = {
          threadId,
          id: event.id,
          sort: sort++,
          graphPath: event.graphPath ?? ['analyst', 'tools'],
          content: '',
          thinking: '',
          toolCall,
        }
        open.set(event.id, message)
        store.startAssistantMessage(threadId, runId, { id: message.id, sort: message.sort, graphPath: [...message.graphPath], toolCall })
        emit({ ...base(message), content: '', isDelta: false, isInProcess: true, toolCall })
        return
      }
      case 'tool-result': {
        const message = get(event)
        if (!message.toolCall) throw new ProtocolError(`agent sent a tool result for text message ${event.id}`)
        message.toolCall = { ...message.toolCall, result: event.result }
        open.delete(event.id)
        store.completeAssistantMessage(threadId, message.id, '', undefined, { toolCall: message.toolCall })
        emit({ ...base(message), content: '', isDelta: false, isInProcess: false, toolCall: message.toolCall })
        return
      }
    }
  }

  let outcome: RunOutcome = 'completed'
  try {
    const iterator = context.agent.run({ ...turn, signal: run.signal })[Symbol.asyncIterator]()
    try {
      for (;;) {
        const next = await abortable(iterator.next(), run.signal)
        if (next.done) break
        handle(next.value)
      }
    } finally {
      if (run.signal.aborted) void iterator.return?.()?.catch(() => {})
    }
    // An agent that forgets to close a message still leaves a complete thread.
    for (const message of open.values()) {
      store.completeAssistantMessage(threadId, message.id, message.content, message.thinking, { toolCall: message.toolCall })
      dirty.delete(message)
    }
    open.clear()
    store.endRun(runId, 'completed')
    run.append(encodeLine(stateLine(store.messages(threadId, turn.devMode))))
  } catch (error) {
    const aborted = run.signal.aborted
    outcome = aborted ? 'aborted' : 'failed'
    for (const message of open.values()) {
      store.completeAssistantMessage(threadId, message.id, message.content, message.thinking, { interrupted: true, toolCall: message.toolCall })
      dirty.delete(message)
    }
    let message: string
    if (aborted) message = run.abortReason ?? 'Run aborted'
    else if (error instanceof AgentError) message = error.message
    else {
      message = 'The agent failed to answer; please try again'
      context.logger.error('chat run failed', { runId, chatId: run.key.chatId, error })
    }
    store.endRun(runId, outcome, message)
    run.append(encodeLine(errorLine(message)))
  } finally {
    context.registry.end(run)
    context.onEnd(outcome)
  }
}
