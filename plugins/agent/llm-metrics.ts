import type { LanguageModelV3, LanguageModelV3StreamPart } from '@ai-sdk/provider'
import { wrapLanguageModel } from 'ai'
import type { Metrics } from '../../lib/metrics'

export type LlmCallMetrics = Pick<Metrics, 'llmCalls' | 'llmCallDuration' | 'llmTokens' | 'llmErrors'>

/**
 * The model with every call counted and timed (until its stream ends), the tokens its provider reports, and
 * failures: a call that cannot start, an error part, or a stream that breaks.
 */
export function withCallMetrics(model: LanguageModelV3, metrics: LlmCallMetrics): LanguageModelV3 {
  const finish = (startedAt: number, outcome: 'ok' | 'error') => {
    metrics.llmCalls.inc({ outcome })
    metrics.llmCallDuration.observe({ outcome }, (performance.now() - startedAt) / 1000)
    if (outcome === 'error') metrics.llmErrors.inc()
  }
  return wrapLanguageModel({
    model,
    middleware: {
      specificationVersion: 'v3',
      async wrapGenerate({ doGenerate }) {
        const startedAt = performance.now()
        try {
          const result = await doGenerate()
          countTokens(metrics, result.usage)
          finish(startedAt, 'ok')
          return result
        } catch (error) {
          finish(startedAt, 'error')
          throw error
        }
      },
      async wrapStream({ doStream }) {
        const startedAt = performance.now()
        let result: Awaited<ReturnType<typeof doStream>>
        try {
          result = await doStream()
        } catch (error) {
          finish(startedAt, 'error')
          throw error
        }
        let outcome: 'ok' | 'error' = 'ok'
        const end = () => finish(startedAt, outcome)
        const watched = result.stream.pipeThrough(
          new TransformStream<LanguageModelV3StreamPart, LanguageModelV3StreamPart>({
            transform(part, controller) {
              if (part.type === 'error') outcome = 'error'
              else if (part.type === 'finish') countTokens(metrics, part.usage)
              controller.enqueue(part)
            },
            flush: end,
          }),
        )
        return { ...result, stream: watched }
      },
    },
  })
}

function countTokens(
  metrics: LlmCallMetrics,
  usage: { inputTokens: { total: number | undefined }; outputTokens: { total: number | undefined } } | undefined,
) {
  if (!usage) return
  if (usage.inputTokens.total) metrics.llmTokens.inc({ kind: 'input' }, usage.inputTokens.total)
  if (usage.outputTokens.total) metrics.llmTokens.inc({ kind: 'output' }, usage.outputTokens.total)
}
