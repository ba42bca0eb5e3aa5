import { t } from 'elysia'

/** `{ name, value }` of a user attribute; `null` clears the value. */
export const UserAttributeInput = t.Object(
  {
    name: t.String({ minLength: 1 }),
    value: t.Union([t.String(), t.Number(), t.Boolean(), t.Array(t.String()), t.Array(t.Number()), t.Null()]),
  },
  { additionalProperties: false },
)
export type UserAttributeInput = typeof UserAttributeInput.static

/**
 * `sessionSettings` of a chat request and of `.../sql`: who is asking. Exactly one of `externalId` and
 * `internalId`; `groups`, `securityContext` and `userAttributes` only with `externalId` (an `email` beside
 * `internalId` is taken and ignored: the internal user's stored profile applies). The cross-field rules are checked
 * by the provisioner (`checkIdentity` in `plugins/embed/identity.ts`), so the message names the field.
 */
export const SessionSettings = t.Object(
  {
    externalId: t.Optional(t.String({ minLength: 1, maxLength: 320 })),
    internalId: t.Optional(t.String({ minLength: 1, maxLength: 320 })),
    email: t.Optional(t.String({ maxLength: 320 })),
    groups: t.Optional(t.Array(t.String({ minLength: 1 }))),
    roles: t.Optional(t.Array(t.String())),
    publicDashboardId: t.Optional(t.String()),
    securityContext: t.Optional(t.Record(t.String(), t.Unknown())),
    userAttributes: t.Optional(t.Array(UserAttributeInput)),
  },
  { additionalProperties: false },
)
export type SessionSettings = typeof SessionSettings.static
