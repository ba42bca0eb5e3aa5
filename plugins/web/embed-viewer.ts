import { Elysia } from 'elysia'
import { ForbiddenError, UnauthorizedError } from '../../lib/errors'
import { readCredential } from '../auth/credentials'
import type { ApiKeyAuthenticator, EmbedCaller, EmbedTokenVerifier } from '../auth/model'

/** What the `embedViewer` macro needs: the two credentials it tells apart. */
export interface EmbedViewerDeps {
  authenticateApiKey: ApiKeyAuthenticator
  embedTokens: EmbedTokenVerifier
  instanceId: string
}

/**
 * The `embedViewer` macro: the route takes an embed token only and hands its session to the handler as `viewer`.
 * A genuine API key is 403 here, a wrong one 401.
 */
export function embedViewerPlugin(deps: EmbedViewerDeps) {
  async function embedViewer(headers: Record<string, string | undefined>): Promise<EmbedCaller> {
    const credential = readCredential(headers)
    if (!credential)
      throw new UnauthorizedError(
        'Missing credentials: send "Authorization: Embed-Token <token>"',
        'MISSING_CREDENTIALS',
      )
    if (credential.scheme === 'embedToken') return deps.embedTokens.verify(credential.value)
    if (credential.scheme === 'apiKey') await deps.authenticateApiKey(credential.value)
    throw new ForbiddenError(
      'This route takes an embed token (Authorization: Embed-Token <token>)',
      'EMBED_TOKEN_REQUIRED',
    )
  }
  return new Elysia({ name: 'embed-viewer', seed: deps.instanceId }).macro({
    embedViewer: {
      async resolve({ headers }) {
        return { viewer: await embedViewer(headers) }
      },
    },
  })
}
