import type { LanguageModelV3 } from '@ai-sdk/provider'
import { APICallError, wrapLanguageModel } from 'ai'

export interface ProviderRetryOptions {
  /** Retries of a call the provider refused with a status worth retrying (408, 409, 429, 5xx). */
  maxRetries: number
  /** The pause before a retry when the provider names none. */
  delayMs?: number
  /** The longest pause a provider's `Retry-After` may ask for; one asking longer ends the call at once. */
  maxWaitMs?: number
}

/**
 * The model with a refused call retried, as the AI SDK would, but never waiting long on a provider's word: a 429 with
 * `Retry-After: 60` fails at once with its status, where the SDK slept up to a minute and the user read that the
 * model did not answer in time (the chat's silence limit ends a turn after 30 s by default). A retry waits for the
 * turn's abort signal too.
 */
export function withProviderRetry(model: LanguageModelV3, options: ProviderRetryOptions): LanguageModelV3 {
  const delayMs = options.delayMs ?? 2000
  const maxWaitMs = options.maxWaitMs ?? 5000
  return wrapLanguageModel({
    model,
    middleware: {
      specificationVersion: 'v3',
      async wrapStream({ doStream, params }) {
        for (let attempt = 0; ; attempt++) {
          try {
            return await doStream()
          } catch (error) {
            if (attempt >= options.maxRetries || !APICallError.isInstance(error) || !error.isRetryable) throw error
            const waitMs = requestedWaitMs(error.responseHeaders) ?? delayMs
            if (waitMs > maxWaitMs) throw error
            await sleep(waitMs, params.abortSignal)
          }
        }
      },
    },
  })
}

/** The pause a provider asks for (`retry-after-ms`, or `retry-after` in seconds or as a date), if any. */
export function requestedWaitMs(headers: Record<string, string> | undefined): number | undefined {
  if (!headers) return undefined
  const ms = Number.parseFloat(headers['retry-after-ms'] ?? '')
  if (Number.isFinite(ms) && ms >= 0) return ms
  const after = headers['retry-after']
  if (after === undefined) return undefined
  const seconds = Number.parseFloat(after)
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000)
  const at = Date.parse(after)
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now())
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason)
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', stop)
      resolve()
    }, ms)
    const stop = () => {
      clearTimeout(timer)
      reject(signal?.reason)
    }
    signal?.addEventListener('abort', stop, { once: true })
  })
}
