import { Elysia } from 'elysia'
import { ForbiddenError, UnauthorizedError } from '../../lib/errors'
import { readCredential } from '../auth/credentials'
import type { ApiKeyAuthenticator, EmbedCaller, EmbedTokenVerifier } from '../auth/model'
import { checkBodyAfterAuthentication } from '../core/strict-json'

/** What the `embedViewer` macro needs: the two credentials it tells apart. */
export interface EmbedViewerDeps {
  authenticateApiKey: ApiKeyAuthenticator
  embedTokens: EmbedTokenVerifier
  instanceId: string
}

type Headers = Record<string, string | undefined>

/** The embed session a request's credentials name: 401 without a genuine one, 403 for a genuine API key. */
export function embedViewerOf(deps: EmbedViewerDeps) {
  return async function embedViewer(headers: Headers): Promise<EmbedCaller> {
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
}

/**
 * Macro options that hand the handler the session `authenticate` accepts, as `viewer`. It runs in `transform`, before
 * the body, query and path are validated, so a caller without the right credentials gets 401 or 403 whatever it sent
 * (a 400 would tell a stranger about the route's schema, and hide the reason that matters); the body's own faults
 * (not JSON, a NUL) are told once it passed.
 */
export function viewerMacro(authenticate: (headers: Headers) => Promise<EmbedCaller>) {
  const viewers = new WeakMap<Request, EmbedCaller>()
  return {
    async transform({ headers, request }: { headers: Headers; request: Request }) {
      viewers.set(request, await authenticate(headers))
      checkBodyAfterAuthentication(request)
    },
    async resolve({ headers, request }: { headers: Headers; request: Request }) {
      return { viewer: viewers.get(request) ?? (await authenticate(headers)) }
    },
  }
}

/**
 * The `embedViewer` macro: the route takes an embed token only and hands its session to the handler as `viewer`.
 * A genuine API key is 403 here, a wrong one 401.
 */
export function embedViewerPlugin(deps: EmbedViewerDeps) {
  return new Elysia({ name: 'embed-viewer', seed: deps.instanceId }).macro({
    embedViewer: viewerMacro(embedViewerOf(deps)),
  })
}
