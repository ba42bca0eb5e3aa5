import type { ApiKeyCaller, EmbedTokenVerifier } from '../plugins/auth/model'
import type { Config } from '../lib/config'
import { RateLimitedError } from '../lib/errors'
import type { Metrics } from '../lib/metrics'
import { RateLimiter } from './rate-limiter'

/**
 * The request rate limits, applied where every authenticated request passes: the API-key check and the embed-token
 * check. A request over its credential's limit is 429 `RATE_LIMITED` with `Retry-After`, before any work is done.
 * (Concurrent chat runs have their own admission limits; these bound the request rate of one credential.)
 */
export function createRequestLimits(
  config: Pick<Config, 'apiKeyRateLimit' | 'embedSessionRateLimit'>,
  clock: () => number,
  metrics: Metrics,
) {
  const perKey = new RateLimiter(config.apiKeyRateLimit, clock)
  const perSession = new RateLimiter(config.embedSessionRateLimit, clock)
  const refuse = (scope: 'api_key' | 'embed_session', retryAfterSeconds: number, what: string) => {
    metrics.rateLimited.inc({ scope })
    return new RateLimitedError(
      `Too many requests for this ${what}; retry in ${retryAfterSeconds} s`,
      retryAfterSeconds,
    )
  }
  return {
    /** Wraps the API-key authenticator: a genuine key is charged one request. */
    forApiKeys(authenticate: (key: string) => Promise<ApiKeyCaller>): (key: string) => Promise<ApiKeyCaller> {
      if (!perKey.enabled) return authenticate
      return async (key) => {
        const caller = await authenticate(key)
        const wait = perKey.take(caller.keyId)
        if (wait > 0) throw refuse('api_key', wait, 'API key')
        return caller
      }
    },
    /** Wraps the embed-token verifier: every token of one session shares the session's budget. */
    forEmbedTokens<Verifier extends EmbedTokenVerifier>(verifier: Verifier): Verifier {
      if (!perSession.enabled) return verifier
      return {
        ...verifier,
        async verify(token) {
          const caller = await verifier.verify(token)
          const wait = perSession.take(caller.sessionId)
          if (wait > 0) throw refuse('embed_session', wait, 'embed session')
          return caller
        },
      }
    },
  }
}
