import type { LanguageModelV3 } from '@ai-sdk/provider'
import { APICallError, RetryError, stepCountIs, streamText, type ModelMessage, type UserContent } from 'ai'
import { AgentError, GRAPH, type Agent, type AgentEvent, type AgentTurn } from '../chat/run/agent'
import { turnTimeLimitMessage } from '../chat/registry/run-deadlines'
import { inlineImage } from '../chat/turn/images'
import type { ImageAttachment, ThreadMessage } from '../chat/model'
import { aiTools, SYSTEM_PROMPT, type AnalystTools } from './analyst-tools'
import { withProviderRetry } from './provider-retry'
import { systemPrompt } from './system-prompt'

export interface AnalystAgentOptions {
  languageModel: LanguageModelV3
  /** The tools bound to one turn. */
  tools(turn: AgentTurn): AnalystTools
  /** Steps (model calls) per turn before the loop is stopped. */
  maxSteps?: number
  /** The whole turn's time limit. */
  timeoutMs?: number
  /** Retries of a failed provider call. */
  maxRetries?: number
  /**
   * Whether the system prompt describes the deployment's model as the caller may query it (a real model needs it;
   * the offline analyst reads the model through its tools and skips the lookup).
   */
  describeModel?: boolean
}

/** The caller's view of the deployment's model for the prompt: serviceMeta's answer, or undefined when it failed. */
async function modelForPrompt(tools: AnalystTools): Promise<unknown> {
  try {
    return await tools.serviceMeta({})
  } catch {
    return undefined
  }
}

/**
 * The thread so far as model messages: the users' words with their images, and the answers (tool details stay out of
 * the prompt).
 */
export function historyMessages(history: ThreadMessage[], maxChars = HISTORY_MAX_CHARS): ModelMessage[] {
  const messages: ModelMessage[] = []
  for (const message of history) {
    if (message.role === 'user') messages.push({ role: 'user', content: userContent(message.content, message.images) })
    else if (!message.toolCall && message.content !== '') messages.push({ role: 'assistant', content: message.content })
  }
  return latest(messages, history, maxChars)
}

/**
 * The words of a thread's earlier turns a prompt carries at most: the latest turns that fit, so a long thread's
 * prompt stays within any model's context (where every turn of it failed once its history outgrew the model's).
 */
export const HISTORY_MAX_CHARS = 48_000

/** The latest of `messages` whose text fits in `maxChars`, starting at a user's message. */
function latest(messages: ModelMessage[], history: ThreadMessage[], maxChars: number): ModelMessage[] {
  let total = 0
  for (const message of history) if (!message.toolCall) total += message.content.length
  if (total <= maxChars) return messages
  let used = 0
  let start = messages.length
  for (let index = messages.length - 1; index >= 0; index--) {
    used += textLength(messages[index])
    if (used > maxChars) break
    start = index
  }
  while (start < messages.length && messages[start].role !== 'user') start++
  return messages.slice(start)
}

function textLength(message: ModelMessage): number {
  if (typeof message.content === 'string') return message.content.length
  let length = 0
  for (const part of message.content) if (part.type === 'text') length += part.text.length
  return length
}

function userContent(text: string, images: readonly ImageAttachment[] | undefined): UserContent {
  const parts = (images ?? []).flatMap((image) => {
    const inline = inlineImage(image)
    return inline ? [{ type: 'image' as const, image: inline.bytes, mediaType: inline.mediaType }] : []
  })
  return parts.length === 0 ? text : [{ type: 'text', text }, ...parts]
}

const PROGRESS: AgentEvent = { type: 'progress' }

/** Said under an answer the model stopped at its output limit (finish reason `length`): a part is not the whole. */
export const ANSWER_CUT_SHORT = '*(The answer was cut short: the model reached its output limit.)*'
/** The final word when the provider's content filter stopped the answer. */
export const ANSWER_FILTERED =
  "The model's provider withheld the answer (its content filter stopped it). Please rephrase the question."
/** The final word when the model reached its output limit before writing any answer (its reasoning used it up). */
export const ANSWER_LIMIT_BEFORE_TEXT =
  'The model reached its output limit before it wrote an answer. Please ask a narrower question.'

/** A provider failure in words fit for the user: status and kind, never URLs, keys or bodies. */
function providerMessage(error: unknown): string {
  if (RetryError.isInstance(error)) return providerMessage(error.lastError)
  // A status under 400 is an answer that broke off (the connection cut mid-stream): no status to name.
  if (APICallError.isInstance(error) && (error.statusCode ?? 0) >= 400)
    return `The model provider failed (HTTP ${error.statusCode})`
  if (error instanceof Error && error.name === 'TimeoutError') return 'The model did not answer in time'
  return 'The model provider failed'
}

/**
 * The analyst: one agent loop on the Vercel AI SDK for every model (the offline analyst and real LLMs alike). Graph
 * paths: reasoning goes on an `["analyst"]` message (shown in development mode only), each tool call
 * and its result is an `["analyst", "tools"]` message, and a step's text streams as a `["final"]` message that is
 * relabelled `["analyst"]` when the same step goes on to call tools, so the final-answer rule picks the last
 * answer. A step limit stops runaway loops.
 */
export function createAnalystAgent(options: AnalystAgentOptions): Agent {
  const maxSteps = options.maxSteps ?? 8
  const model = withProviderRetry(options.languageModel, { maxRetries: options.maxRetries ?? 1 })
  return {
    async *run(turn: AgentTurn): AsyncIterable<AgentEvent> {
      const timeoutMs = options.timeoutMs ?? 120_000
      // The turn's time limit, also kept by the chat's run deadlines: whichever fires first, the line says the same.
      const timeout = AbortSignal.timeout(timeoutMs)
      const signal = AbortSignal.any([turn.signal, timeout])
      const tools = options.tools(turn)
      const system = options.describeModel ? systemPrompt(await modelForPrompt(tools)) : SYSTEM_PROMPT
      const result = streamText({
        model,
        system,
        messages: [...historyMessages(turn.history), { role: 'user', content: userContent(turn.input, turn.images) }],
        tools: aiTools(tools, turn.pause),
        stopWhen: stepCountIs(maxSteps),
        // A step (the prompt's conversion and the model call; the offline analyst plans inside it) waits its turn of
        // the event loop when the runs have had theirs.
        prepareStep: turn.pause
          ? async () => {
              await turn.pause?.()
              return undefined
            }
          : undefined,
        abortSignal: signal,
        // Refused calls are retried by the model's wrapper, which does not wait a minute on a provider's Retry-After.
        maxRetries: 0,
        // Models that reason on request (the offline analyst) need not when nobody will see it.
        providerOptions: { offline: { reasoning: turn.devMode } },
        // Failures arrive as `error` parts below and become one redacted error line; nothing is printed.
        onError: () => {},
      })

      let stepTexts: string[] = []
      let stepCalledTools = false
      let lastStepCalledTools = false
      let reasoningId: string | undefined
      const textIds = new Map<string, string>()
      const begun = new Set<string>()
      // The provider's tool-call ids are not unique: some servers name every call `call_1`. A message id must be, in
      // the thread (its rows are keyed by it) and in the stream, so each call gets its own.
      const toolIds = new Map<string, string>()
      let produced = false
      let lastFinishReason: string | undefined

      try {
        for await (const part of result.fullStream) {
          switch (part.type) {
            case 'start-step':
              stepTexts = []
              stepCalledTools = false
              reasoningId = undefined
              break
            case 'reasoning-start':
              if (turn.devMode && !reasoningId) {
                reasoningId = crypto.randomUUID()
                yield { type: 'message-start', id: reasoningId, graphPath: GRAPH.analyst }
              }
              break
            case 'reasoning-delta':
              yield reasoningId ? { type: 'thinking-delta', id: reasoningId, delta: part.text } : PROGRESS
              break
            // A tool call's arguments stream before the call is shown: the model is not silent meanwhile.
            case 'tool-input-start':
            case 'tool-input-delta':
              yield PROGRESS
              break
            case 'text-start': {
              const id = crypto.randomUUID()
              textIds.set(part.id, id)
              stepTexts.push(id)
              yield { type: 'message-start', id, graphPath: GRAPH.final }
              break
            }
            case 'text-delta': {
              const id = textIds.get(part.id)
              // A message starts at its first word: the blank lines a model leaves after its <think> block go.
              const text = id && !begun.has(id) ? part.text.trimStart() : part.text
              if (id && text) {
                begun.add(id)
                produced = true
                yield { type: 'text-delta', id, delta: text }
              }
              break
            }
            case 'tool-call': {
              stepCalledTools = true
              const id = crypto.randomUUID()
              toolIds.set(part.toolCallId, id)
              yield {
                type: 'tool-call',
                id,
                name: part.toolName,
                input: JSON.stringify(part.input ?? {}),
              }
              break
            }
            case 'tool-result':
              yield {
                type: 'tool-result',
                id: toolIds.get(part.toolCallId) ?? part.toolCallId,
                result: JSON.stringify(part.output ?? null),
              }
              break
            case 'tool-error':
              yield {
                type: 'tool-result',
                id: toolIds.get(part.toolCallId) ?? part.toolCallId,
                result: JSON.stringify({
                  error: part.error instanceof Error ? part.error.message : String(part.error),
                }),
              }
              break
            case 'finish-step': {
              if (reasoningId) yield { type: 'message-end', id: reasoningId }
              lastFinishReason = part.finishReason
              const last = stepTexts.at(-1)
              // (Only under words this step wrote: a message it started and left empty gets no note of its own.)
              if (part.finishReason === 'length' && last && begun.has(last))
                yield { type: 'text-delta', id: last, delta: `\n\n${ANSWER_CUT_SHORT}` }
              for (const id of stepTexts)
                yield { type: 'message-end', id, graphPath: stepCalledTools ? GRAPH.analyst : GRAPH.final }
              lastStepCalledTools = stepCalledTools
              break
            }
            case 'error':
              if (turn.signal.aborted) throw turn.signal.reason
              throw new AgentError(timeout.aborted ? turnTimeLimitMessage(timeoutMs) : providerMessage(part.error))
            case 'abort':
              if (timeout.aborted && !turn.signal.aborted) throw new AgentError(turnTimeLimitMessage(timeoutMs))
              throw turn.signal.reason ?? new Error('aborted')
          }
        }
      } catch (error) {
        // What the stream itself throws (a connection cut mid-answer, say) is the provider failing too, not a bug.
        if (error instanceof AgentError) throw error
        if (turn.signal.aborted) throw turn.signal.reason ?? error
        throw new AgentError(timeout.aborted ? turnTimeLimitMessage(timeoutMs) : providerMessage(error))
      }

      if (lastStepCalledTools || !produced) {
        // The loop stopped on its step limit (or the model said nothing): the user still gets a final word.
        const id = crypto.randomUUID()
        yield { type: 'message-start', id, graphPath: GRAPH.final }
        yield {
          type: 'text-delta',
          id,
          delta: lastStepCalledTools
            ? `I could not finish the analysis within ${maxSteps} steps. Please ask a narrower question.`
            : lastFinishReason === 'content-filter'
              ? ANSWER_FILTERED
              : lastFinishReason === 'length'
                ? ANSWER_LIMIT_BEFORE_TEXT
                : 'The model returned no answer. Please try again or rephrase the question.',
        }
        yield { type: 'message-end', id }
      }
    },
  }
}
