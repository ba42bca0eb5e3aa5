import { bigint, customType } from 'drizzle-orm/pg-core'

/** Unix milliseconds: past 2^31, so `bigint`, read back as a JavaScript number like SQLite's integers. */
export const ms = (name: string) => bigint(name, { mode: 'number' })

/**
 * A JSON value kept as text, parsed on read: what the SQLite schema's `text({ mode: 'json' })` does. Not `jsonb`:
 * jsonb reorders object keys and drops duplicate ones, so a value would come back different from what was stored
 * (dashboard checksums and wire output follow key order), and no query looks inside these values anyway.
 */
export const jsonText = <T>(name: string) =>
  customType<{ data: T; driverData: string }>({
    dataType: () => 'text',
    toDriver: (value) => JSON.stringify(value),
    fromDriver: (value) => JSON.parse(value) as T,
  })(name)
