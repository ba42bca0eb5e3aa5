import { and, sql, type SQL, type SQLWrapper } from 'drizzle-orm'
import type { Dialect } from '../../db/client'

/** The fields of one stored recipient that a notification list filters on, with the value each must have. */
export type RecipientFields = Record<string, string | number>

/**
 * "Some recipient of the JSON array in `column` has these fields": the one management query that looks inside a
 * JSON value, so it cannot be written once for both databases. Each dialect reads the array with its own JSON
 * functions; the column holds the same JSON text on both. Field names come from code, never from a request.
 */
export function someRecipientHas(dialect: Dialect, column: SQLWrapper, fields: RecipientFields): SQL {
  const names = Object.keys(fields)
  if (names.some((name) => !/^[A-Za-z]+$/.test(name))) throw new Error(`Not a recipient field: ${names.join(', ')}`)
  if (dialect === 'postgres') {
    // `->>` reads every field as text, so the values are compared as text too (a user id 7 reads as '7').
    const matches = names.map((name) => sql`${sql.raw(`recipient.value->>'${name}'`)} = ${String(fields[name])}`)
    return sql`EXISTS (SELECT 1 FROM jsonb_array_elements(cast(${column} as jsonb)) AS recipient(value) WHERE ${and(...matches)})`
  }
  // `json_extract` keeps JSON numbers numeric, so numbers are bound as numbers.
  const matches = names.map((name) => sql`${sql.raw(`json_extract(recipient.value, '$.${name}')`)} = ${fields[name]}`)
  return sql`EXISTS (SELECT 1 FROM json_each(${column}) AS recipient WHERE ${and(...matches)})`
}
