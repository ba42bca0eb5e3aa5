/**
 * The form identities are stored in: lowercased and trimmed. An `internalId` (a username) is matched in this form;
 * an `externalId` is never put in it, but refused unless already in it (see `isNormalizedIdentity`).
 */
export function normalizeIdentity(value: string): string {
  return value.trim().toLowerCase()
}

/** Whether `value` is already lowercase and trimmed, as an `externalId` must be. */
export function isNormalizedIdentity(value: string): boolean {
  return value === normalizeIdentity(value)
}
