import { BadRequestError } from '../../lib/errors'
import { isNormalizedIdentity, normalizeIdentity } from '../auth/normalize-identity'

export type Identity = { kind: 'external'; externalId: string } | { kind: 'internal'; username: string }

/**
 * Fields generate-session refuses with `internalId`: the internal user's stored profile and permissions apply. The
 * first one sent is named in the 400.
 */
export const FORBIDDEN_WITH_INTERNAL_ID = [
  'email',
  'userProfile',
  'groups',
  'userAttributes',
  'securityContext',
  'groupDefinitions',
  'userAttributeDefinitions',
  'tenantGroups',
  'tenantGroupDefinitions',
] as const

/**
 * The fields chat `sessionSettings` refuses beside `internalId`, since an internal user's stored profile applies:
 * `email` is allowed there, and ignored.
 */
export const CHAT_FORBIDDEN_WITH_INTERNAL_ID = ['groups', 'securityContext', 'userAttributes'] as const

/**
 * The identity rules: exactly one of `externalId` and `internalId` (400 naming them), with `internalId` none of
 * the `forbidden` fields (400 naming the first one sent), and no blank identity. `internalId` names an
 * existing user and is matched lowercased and trimmed; `externalId` must already be in that form.
 */
export function checkIdentity(
  fields: Record<string, unknown>,
  forbidden: readonly string[] = FORBIDDEN_WITH_INTERNAL_ID,
): Identity {
  const { externalId, internalId } = fields as { externalId?: string; internalId?: string }
  if (externalId !== undefined && internalId !== undefined)
    throw new BadRequestError('Send either externalId or internalId, not both', 'IDENTITY_CONFLICT')
  if (externalId === undefined && internalId === undefined)
    throw new BadRequestError('externalId or internalId is required', 'IDENTITY_REQUIRED')
  if (internalId !== undefined) {
    const sent = forbidden.find((field) => fields[field] !== undefined)
    if (sent) throw new BadRequestError(`${sent} is not allowed with internalId`, 'NOT_ALLOWED_WITH_INTERNAL_ID')
    if (!internalId.isWellFormed()) throw new BadRequestError(UNPAIRED('internalId'), 'INVALID_INTERNAL_ID')
    const username = normalizeIdentity(internalId)
    if (username === '') throw new BadRequestError('internalId must not be blank', 'BLANK_IDENTITY')
    return { kind: 'internal', username }
  }
  return { kind: 'external', externalId: checkExternalId(externalId!) }
}

/** The message for an identity that is not well-formed Unicode. */
export const UNPAIRED = (field: string) => `${field} must be well-formed Unicode text (it has an unpaired surrogate)`

/**
 * 400 unless `externalId` is already lowercase and trimmed. It is never normalized: `Acme-7` and `acme-7` may be
 * two people in the caller's system, and merging them would merge their row-level security.
 */
export function checkExternalId(externalId: string): string {
  if (externalId.trim() === '') throw new BadRequestError('externalId must not be blank', 'BLANK_IDENTITY')
  // Stored as UTF-8, every unpaired surrogate reads back as U+FFFD: `a\uD800` and `a\uDBFF` would be one user.
  if (!externalId.isWellFormed()) throw new BadRequestError(UNPAIRED('externalId'), 'INVALID_EXTERNAL_ID')
  if (!isNormalizedIdentity(externalId))
    throw new BadRequestError('externalId must be lowercase and trimmed', 'INVALID_EXTERNAL_ID')
  return externalId
}

/** An email address as far as its syntax goes: text, one `@`, text, and no whitespace inside. */
const EMAIL_ADDRESS = /^[^\s@]+@[^\s@]+$/

/**
 * 400 unless `email` reads as an email address (around spaces are trimmed, as provisioning stores it); an empty one is
 * allowed, and clears the stored address. Nothing is sent to it: the syntax is all there is to check.
 */
export function checkEmail(email: string): void {
  const address = email.trim()
  if (address !== '' && !EMAIL_ADDRESS.test(address))
    throw new BadRequestError('email must be an email address, such as name@example.com', 'INVALID_EMAIL')
}

/**
 * `http://` or `https://`, then a host, and nothing a browser would have to repair (spaces, backslashes) or that no
 * URL may hold (control characters: the parser drops tabs and newlines silently and percent-encodes the others).
 */
const ABSOLUTE_HTTP_URL = /^https?:\/\/[^\s/?#\\\x00-\x1f\x7f-\x9f]+([/?#][^\s\\\x00-\x1f\x7f-\x9f]*)?$/i

/** 400 unless `picture` is an absolute http(s) URL. Only the syntax is checked; the URL is never fetched. */
export function checkPictureUrl(picture: string): void {
  let url: URL | undefined
  try {
    url = new URL(picture)
  } catch {
    url = undefined
  }
  // The text itself must be the absolute form: the URL parser also takes `https:host/a.png`, `https:///a.png`,
  // backslashes and surrounding spaces, which it repairs but a browser may read as a path on the embedding page.
  if (!url || !ABSOLUTE_HTTP_URL.test(picture) || url.hostname === '')
    throw new BadRequestError('userProfile.picture must be an absolute http:// or https:// URL', 'INVALID_PICTURE_URL')
}
