import { Type } from '@sinclair/typebox'
import { t } from 'elysia'
import { UserAttributeInput } from '../auth/session-settings'

/** An embed tenant's name: 5 to 36 lower-case letters, digits and dashes, starting with a letter, not ending with a dash. */
export const EMBED_TENANT_NAME_PATTERN = '^(?=.{5,36}$)[a-z][a-z0-9-]*[a-z0-9]$'

/** The type of a user attribute's values. */
export const AttributeType = Type.Union([
  Type.Literal('string'),
  Type.Literal('number'),
  Type.Literal('boolean'),
  Type.Literal('string_array'),
  Type.Literal('number_array'),
])
export type AttributeType = typeof AttributeType.static

const Name = t.String({ minLength: 1, maxLength: 200 })
const Identity = t.String({ minLength: 1, maxLength: 320 })

/** `groupDefinitions` and `tenantGroupDefinitions` elements. */
export const GroupDefinition = t.Object(
  {
    name: Name,
    description: t.Optional(
      t.String({ maxLength: 2000, description: 'Updated when supplied and different; never cleared.' }),
    ),
  },
  { additionalProperties: false },
)
export type GroupDefinition = typeof GroupDefinition.static

/** `userAttributeDefinitions` elements. */
export const UserAttributeDefinition = t.Object(
  {
    name: Name,
    type: AttributeType,
    displayName: t.Optional(t.String({ maxLength: 200 })),
    defaultValue: t.Optional(t.String({ maxLength: 2000 })),
    description: t.Optional(t.String({ maxLength: 2000 })),
  },
  { additionalProperties: false },
)
export type UserAttributeDefinition = typeof UserAttributeDefinition.static

export const UserProfile = t.Object(
  {
    displayName: t.Optional(t.String({ maxLength: 200 })),
    picture: t.Optional(
      t.String({
        maxLength: 2048,
        description: 'Absolute http(s) URL; only its syntax is checked, it is never fetched.',
      }),
    ),
  },
  { additionalProperties: false },
)

export const EmbedTenantName = t.String({
  pattern: EMBED_TENANT_NAME_PATTERN,
  description:
    'Lowercase, 5 to 36 characters of a-z, 0-9 and -, starting with a letter and ending with a letter or digit.',
})

/**
 * The generate-session body (release v0.2.1). Unknown fields are rejected (a misspelt
 * `userAttributes` must not silently mint a session without its row-level security), and so is
 * `ephemeralTtlSeconds`, removed in v0.2.0; both are checked before this schema by the route.
 */
export const GenerateSessionBody = t.Object(
  {
    // TypeBox's integer, not Elysia's: that one also takes strings that read as numbers ("11", "0x0b", "1e1").
    deploymentId: Type.Integer({ minimum: 1, description: 'Deployment the session grants access to.' }),
    externalId: t.Optional(Identity),
    internalId: t.Optional(Identity),
    email: t.Optional(t.String({ maxLength: 320 })),
    userProfile: t.Optional(UserProfile),
    embedTenantName: t.Optional(EmbedTenantName),
    creatorMode: t.Optional(t.Boolean()),
    userAttributes: t.Optional(t.Array(UserAttributeInput, { maxItems: 1000 })),
    groups: t.Optional(t.Array(Name, { maxItems: 1000 })),
    userAttributeDefinitions: t.Optional(t.Array(UserAttributeDefinition, { maxItems: 1000 })),
    groupDefinitions: t.Optional(t.Array(GroupDefinition, { maxItems: 1000 })),
    securityContext: t.Optional(t.Record(t.String(), t.Unknown())),
    settings: t.Optional(
      t.Object(
        {
          showDashboardChat: t.Optional(
            t.Boolean({
              description: 'Omitted: the account-wide setting applies. false hides, true shows the dashboard chat.',
            }),
          ),
        },
        { additionalProperties: false },
      ),
    ),
    tenantGroups: t.Optional(t.Array(Name, { maxItems: 1000 })),
    tenantGroupDefinitions: t.Optional(t.Array(GroupDefinition, { maxItems: 1000 })),
    embedTenantProfile: t.Optional(
      t.Object({ displayName: t.Optional(t.String({ maxLength: 200 })) }, { additionalProperties: false }),
    ),
  },
  { additionalProperties: false },
)
export type GenerateSessionBody = typeof GenerateSessionBody.static

export const GenerateSessionResponse = t.Object({
  sessionId: t.String({ description: 'Exchange it once, within 5 minutes, at POST /api/v1/embed/session/token.' }),
})

export const SessionIdBody = t.Object(
  { sessionId: t.String({ minLength: 1, maxLength: 512 }) },
  { additionalProperties: false },
)

export const EmbedTokenResponse = t.Object({
  token: t.String({ description: 'HS256 JWT valid for 24 hours; send it as `Authorization: Embed-Token <token>`.' }),
  expiresAt: t.String({ format: 'date-time' }),
})

export const ErrorResponse = t.Object({ error: t.String(), code: t.String() })

export const EmbedTenantParams = t.Object({ embedTenantName: t.String() })
export const EmbedTenantGroupParams = t.Object({ embedTenantName: t.String(), id: t.String() })

export const GroupsQuery = t.Object({
  // A string parsed by the route: the framework's numeric query errors do not name the parameter.
  first: t.Optional(t.String({ description: 'Page size: an integer from 1 to 100 (default 20).', examples: ['20'] })),
  after: t.Optional(t.String({ maxLength: 200, description: 'The endCursor of the previous page.' })),
})
export type GroupsQuery = typeof GroupsQuery.static

export const EmbedTenantGroup = t.Object({
  id: t.Integer(),
  name: t.String(),
  description: t.Union([t.String(), t.Null()]),
})
export type EmbedTenantGroup = typeof EmbedTenantGroup.static

export const EmbedTenantGroupsPage = t.Object({
  items: t.Array(EmbedTenantGroup),
  pageInfo: t.Object({ hasNextPage: t.Boolean(), endCursor: t.Union([t.String(), t.Null()]) }),
})
export type EmbedTenantGroupsPage = typeof EmbedTenantGroupsPage.static
