import { Name } from './model/common'

/**
 * A name the server makes from another (`Copy of Sales`, `Revenue (2026-07-20T12:00:00.000Z)`), kept within the limit a
 * name has: the base is cut short with an ellipsis, never inside a character, so a client can send the name it read
 * back unchanged.
 */
export function derivedName(base: string, { prefix = '', suffix = '' }: { prefix?: string; suffix?: string }): string {
  const room = Name.maxLength! - prefix.length - suffix.length
  if (base.length <= room) return `${prefix}${base}${suffix}`
  let cut = ''
  for (const character of base) {
    if (cut.length + character.length > room - 1) break
    cut += character
  }
  return `${prefix}${cut}…${suffix}`
}
