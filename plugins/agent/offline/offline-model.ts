import type { LanguageModelV3, LanguageModelV3CallOptions, LanguageModelV3Prompt, LanguageModelV3StreamPart } from '@ai-sdk/provider'
import { writeAnswer, writeUnmapped, answerTitle } from './answer'
import { indexMeta, type MetaIndex } from './meta-index'
import { latestDateQuery, lookupCandidates, mainQuery, matchValues, valuesQuery, type SqlResult } from './plan-query'
import { related, timeDimensionFor, understand, type Understanding } from './question'
import { resolveRange } from './time-range'

interface ToolExchange {
  name: string
  input: Record<string, unknown>
  output: unknown
}

/** The user's latest question and the tool calls made for it so far, read from the prompt. */
function readPrompt(prompt: LanguageModelV3Prompt): { question: string; exchanges: ToolExchange[] } {
  let last = -1
  prompt.forEach((message, index) => {
    if (message.role === 'user') last = index
  })
  const question =
    last < 0
      ? ''
      : (prompt[last].content as Array<{ type: string; text?: string }>)
          .filter((part) => part.type === 'text')
          .map((part) => part.text)
          .join(' ')
  const calls = new Map<string, ToolExchange>()
  for (const message of prompt.slice(last + 1)) {
    if (message.role !== 'assistant' && message.role !== 'tool') continue
    for (const part of message.content) {
      if (part.type === 'tool-call') calls.set(part.toolCallId, { name: part.toolName, input: (part.input ?? {}) as Record<string, unknown>, output: undefined })
      if (part.type === 'tool-result') {
        const exchange = calls.get(part.toolCallId)
        const output = part.output
        if (exchange) exchange.output = output.type === 'json' || output.type === 'error-json' ? output.value : output.type === 'text' || output.type === 'error-text' ? { error: output.value } : undefined
      }
    }
  }
  return { question: question.trim(), exchanges: [...calls.values()] }
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

type Action =
  | { kind: 'tools'; reasoning: string; calls: Array<{ name: string; input: Record<string, unknown> }> }
  | { kind: 'answer'; reasoning: string; text: string }

// A turn asks the model several times with the same meta result and question: read them once.
const indexes = new WeakMap<object, MetaIndex>()
const readings = new WeakMap<MetaIndex, Map<string, ReturnType<typeof understand>>>()

function indexOf(meta: unknown): MetaIndex {
  if (typeof meta !== 'object' || meta === null) return indexMeta(meta)
  let index = indexes.get(meta)
  if (!index) indexes.set(meta, (index = indexMeta(meta)))
  return index
}

function readingOf(question: string, index: MetaIndex): ReturnType<typeof understand> {
  let byQuestion = readings.get(index)
  if (!byQuestion) readings.set(index, (byQuestion = new Map()))
  let reading = byQuestion.get(question)
  if (!reading) byQuestion.set(question, (reading = understand(question, index)))
  return reading
}

/**
 * Decides the next step from the question and what the tools returned so far: read the model, look up what the
 * question needs (the latest date for relative ranges, dimension values for filters), run the main query, then
 * write the answer. Deterministic: the same question over the same data gives the same answer.
 */
export function decide(question: string, exchanges: ToolExchange[]): Action {
  const meta = exchanges.find((exchange) => exchange.name === 'serviceMeta')
  if (!meta) return { kind: 'tools', reasoning: 'I will read the data model first to see which measures and dimensions I may use.', calls: [{ name: 'serviceMeta', input: {} }] }
  if (meta.output === undefined || (meta.output as { error?: string }).error)
    return { kind: 'answer', reasoning: 'The model could not be read.', text: `I could not read the data model: ${(meta.output as { error?: string })?.error ?? 'no result'}.` }
  const index = indexOf(meta.output)
  const reading = readingOf(question, index)
  if (reading.kind === 'unmapped') return { kind: 'answer', reasoning: reading.reason, text: writeUnmapped(reading.reason, index) }
  const understanding = reading.understanding
  const sqlOf = (sql: string) => exchanges.find((exchange) => exchange.name === 'serviceSqlApi' && exchange.input.sqlQuery === sql)?.output as SqlResult | undefined

  // What the question needs before the main query.
  const needed: Array<{ name: string; input: Record<string, unknown> }> = []
  const latestSql = understanding.range && understanding.range.kind !== 'absolute' && understanding.timeDimension ? latestDateQuery(understanding.timeDimension) : undefined
  if (latestSql && !sqlOf(latestSql)) needed.push({ name: 'serviceSqlApi', input: { sqlQuery: latestSql, queryTitle: 'Latest date in the data' } })
  const lookups = understanding.candidates.length
    ? lookupCandidates(
        index.cubes.flatMap((cube) => cube.dimensions),
        related(index, understanding.measure.cube),
      ).filter((member) => !understanding.dimensions.includes(member))
    : []
  for (const member of lookups) {
    const sql = valuesQuery(member)
    if (!sqlOf(sql)) needed.push({ name: 'serviceSqlApi', input: { sqlQuery: sql, queryTitle: `Values of ${member.title}` } })
  }
  if (needed.length)
    return {
      kind: 'tools',
      reasoning: `The question asks for ${understanding.measure.title}${understanding.candidates.length ? `; "${understanding.candidates.join(' ')}" may be a value to filter on, so I will look up the values I may see` : ''}${latestSql ? '; relative dates count back from the latest date in the data' : ''}.`,
      calls: needed,
    }

  const latest = latestSql ? sqlOf(latestSql)?.data?.[0]?.[0] ?? undefined : undefined
  const range = understanding.range ? resolveRange(understanding.range, latest) : undefined
  const values = matchValues(
    question,
    lookups.map((member) => ({ member, result: sqlOf(valuesQuery(member)) ?? {} })),
  )
  const filters = { values, range }
  // The best measure first; when its query fails (say, its cube cannot combine with a filter's), the next best
  // measure from another cube: the analyst corrects itself instead of giving up.
  const attempts: Understanding[] = [understanding]
  for (const measure of understanding.alternatives) {
    const timeDimension = understanding.timeDimension ? timeDimensionFor(index, [], measure.cube) : undefined
    if (!understanding.timeDimension || timeDimension) attempts.push({ ...understanding, measure, timeDimension })
  }
  let failure: { attempt: Understanding; error: string } | undefined
  for (const attempt of attempts) {
    const sql = mainQuery(attempt, filters)
    const result = sqlOf(sql)
    if (!result)
      return {
        kind: 'tools',
        reasoning: failure ? `That failed (${failure.error}); trying ${attempt.measure.title} instead.` : describePlan(attempt, sql),
        calls: [{ name: 'serviceSqlApi', input: { sqlQuery: sql, queryTitle: answerTitle(attempt, filters), userRequest: question } }],
      }
    if (!result.error) return { kind: 'answer', reasoning: 'The query returned; I will summarise it.', text: writeAnswer(attempt, filters, result) }
    failure ??= { attempt, error: result.error }
  }
  return {
    kind: 'answer',
    reasoning: 'The query failed.',
    text: `I could not compute ${answerTitle(failure!.attempt, filters).toLowerCase()}: ${failure!.error}`,
  }
}

function describePlan(understanding: Understanding, sql: string): string {
  return `I will compute ${understanding.measure.title} (${understanding.measure.path}) with: ${sql}`
}

function delay(ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (ms <= 0) return Promise.resolve()
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms)
    signal?.addEventListener('abort', () => (clearTimeout(timer), reject(signal.reason)), { once: true })
  })
}

const usage = { inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 0, text: 0, reasoning: 0 } }

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
      const { question, exchanges } = readPrompt(call.prompt)
      const action = decide(question, exchanges)
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
                controller.enqueue({ type: 'tool-call', toolCallId: crypto.randomUUID(), toolName: toolCall.name, input: JSON.stringify(toolCall.input) })
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
