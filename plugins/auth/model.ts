import { t } from 'elysia'
import type { AttributeValue } from '../../db/schema'

/** Who is calling. Every authenticated route gets exactly one of these as `caller`. */
export interface ApiKeyCaller {
  kind: 'apiKey'
  accountId: number
  accountName: string
  keyId: number
  admin: boolean
  /** Deployment ids the key may act on, or `null` for every deployment of the account. */
  deploymentScope: number[] | null
}

export interface ServiceTokenCaller {
  kind: 'serviceToken'
  accountId: number
  accountName: string
  deploymentId: number
  /** The external user: the token's `externalId` claim, else `sub`, lowercased and trimmed. */
  externalId: string
  securityContext: Record<string, unknown> | undefined
}

/** What an embed session granted at mint time; the token carries exactly this access and no more. */
export interface EmbedCaller {
  kind: 'embed'
  accountId: number
  accountName: string
  deploymentId: number
  sessionId: string
  userId: number
  embedTenantId: number | null
  creatorMode: boolean
  groups: string[]
  userAttributes: Record<string, AttributeValue>
  securityContext: Record<string, unknown> | undefined
  settings: Record<string, unknown>
  /** Unix seconds. */
  expiresAt: number
}

export type Caller = ApiKeyCaller | ServiceTokenCaller | EmbedCaller

/** Resolves an API key to its caller; throws when the key is unknown or revoked. */
export type ApiKeyAuthenticator = (key: string) => Promise<ApiKeyCaller>

/** Checks embed tokens; the embed area provides the implementation. */
export interface EmbedTokenVerifier {
  verify(token: string): Promise<EmbedCaller>
}

/** The credential headers, for OpenAPI and validation. */
export const CredentialHeaders = t.Object({
  authorization: t.Optional(t.String({ description: '`Api-Key <key>` or `Embed-Token <token>`' })),
  'x-service-auth-token': t.Optional(t.String({ description: "The deployment's HS256 JWT" })),
})

export const securitySchemes = {
  ApiKey: {
    type: 'apiKey',
    in: 'header',
    name: 'Authorization',
    description: '`Api-Key <key>`',
  },
  EmbedToken: {
    type: 'apiKey',
    in: 'header',
    name: 'Authorization',
    description: '`Embed-Token <token>`, from `POST /api/v1/embed/session/token`',
  },
  ServiceAuthToken: {
    type: 'apiKey',
    in: 'header',
    name: 'X-Service-Auth-Token',
    description: "The deployment's HS256 JWT with `scope` holding `chat`",
  },
} as const
