import { apiKey } from './app'
import { keys } from './fixtures'

/** Mints an embed session for `externalId` on deployment 1 and exchanges it; returns its id and token. */
export async function embedSession(
  app: {
    request(
      method: string,
      path: string,
      init?: { body?: unknown; headers?: Record<string, string> },
    ): Promise<Response>
  },
  externalId: string,
) {
  const minted = await app.request('POST', '/api/v1/embed/generate-session', {
    headers: apiKey(keys.admin),
    body: { deploymentId: 1, externalId },
  })
  const { sessionId } = (await minted.json()) as { sessionId: string }
  const exchanged = await app.request('POST', '/api/v1/embed/session/token', { body: { sessionId } })
  const { token } = (await exchanged.json()) as { token: string }
  return { sessionId, token }
}
