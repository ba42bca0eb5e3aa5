import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3Prompt,
  LanguageModelV3StreamPart,
} from '@ai-sdk/provider'
import { decide, type ToolExchange } from './decide'

const textOf = (content: unknown) =>
  typeof content === 'string'
    ? content
    : (content as Array<{ type: string; text?: string }>)
        .filter((part) => part.type === 'text')
        .map((part) => part.text)
        .join(' ')

/** The thread's user questions (the latest last) and the tool calls made for the latest so far, read from the prompt. */
function readPrompt(prompt: LanguageModelV3Prompt): { questions: string[]; exchanges: ToolExchange[] } {
  let last = -1
  const questions: string[] = []
  prompt.forEach((message, index) => {
    if (message.role !== 'user') return
    last = index
    questions.push(textOf(message.content).trim())
  })
  const calls = new Map<string, ToolExchange>()
  for (const message of prompt.slice(last + 1)) {
    if (message.role !== 'assistant' && message.role !== 'tool') continue
    for (const part of message.content) {
      if (part.type === 'tool-call')
        calls.set(part.toolCallId, {
          name: part.toolName,
          input: (part.input ?? {}) as Record<string, unknown>,
          output: undefined,
        })
      if (part.type === 'tool-result') {
        const exchange = calls.get(part.toolCallId)
        const output = part.output
        if (exchange)
          exchange.output =
            output.type === 'json' || output.type === 'error-json'
              ? output.value
              : output.type === 'text' || output.type === 'error-text'
                ? { error: output.value }
                : undefined
      }
    }
  }
  return { questions, exchanges: [...calls.values()] }
}

/**
 * Splits text into word-sized tokens (each with its trailing space), the unit the analyst streams. Unpaced
 * (`delayMs` 0), tokens are grouped into pieces of about `unpacedChars` characters: nobody watches them appear,
 * and every delta costs the same work however small.
 */
function tokens(text: string, delayMs: number, unpacedChars = 48): string[] {
  const words = text.match(/\S+\s*|\s+/g) ?? []
  if (delayMs > 0) return words
  const pieces: string[] = []
  let piece = ''
  for (const word of words) {
    piece += word
    if (piece.length >= unpacedChars) {
      pieces.push(piece)
      piece = ''
    }
  }
  if (piece) pieces.push(piece)
  return pieces
}

function delay(ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (ms <= 0) return Promise.resolve()
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms)
    signal?.addEventListener('abort', () => (clearTimeout(timer), reject(signal.reason)), { once: true })
  })
}

const usage = {
  inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 0, text: 0, reasoning: 0 },
}

/**
 * The built-in offline analyst as an AI SDK language model, so the same agent loop drives it and real LLMs. It reads
 * the question and the tool results in the prompt, calls the tools it needs, and streams its answer token by token,
 * `delayMs` apart.
 */
export function createOfflineAnalystModel(options: { delayMs: number }): LanguageModelV3 {
  return {
    specificationVersion: 'v3',
    provider: 'offline',
    modelId: 'offline-analyst',
    supportedUrls: {},
    async doGenerate() {
      throw new Error('The offline analyst only streams')
    },
    async doStream(call: LanguageModelV3CallOptions) {
      const { questions, exchanges } = readPrompt(call.prompt)
      const action = decide(questions, exchanges)
      const signal = call.abortSignal
      const stream = new ReadableStream<LanguageModelV3StreamPart>({
        async start(controller) {
          try {
            controller.enqueue({ type: 'stream-start', warnings: [] })
            // Reasoning is shown only in development mode; the agent says when it is wanted.
            if (call.providerOptions?.offline?.reasoning !== false) {
              controller.enqueue({ type: 'reasoning-start', id: 'r' })
              controller.enqueue({ type: 'reasoning-delta', id: 'r', delta: action.reasoning })
              controller.enqueue({ type: 'reasoning-end', id: 'r' })
            }
            if (action.kind === 'tools') {
              for (const toolCall of action.calls)
                controller.enqueue({
                  type: 'tool-call',
                  toolCallId: crypto.randomUUID(),
                  toolName: toolCall.name,
                  input: JSON.stringify(toolCall.input),
                })
              controller.enqueue({ type: 'finish', finishReason: { unified: 'tool-calls', raw: undefined }, usage })
            } else {
              controller.enqueue({ type: 'text-start', id: 't' })
              for (const token of tokens(action.text, options.delayMs)) {
                await delay(options.delayMs, signal)
                controller.enqueue({ type: 'text-delta', id: 't', delta: token })
              }
              controller.enqueue({ type: 'text-end', id: 't' })
              controller.enqueue({ type: 'finish', finishReason: { unified: 'stop', raw: undefined }, usage })
            }
            controller.close()
          } catch (error) {
            controller.error(error)
          }
        },
      })
      return { stream }
    },
  }
}
