import type { Table } from 'drizzle-orm'

/** The columns of `T` declared with `mode: 'json'`. */
type JsonColumns<T extends Table> = {
  [K in keyof T['_']['columns']]: T['_']['columns'][K]['_']['dataType'] extends 'json' ? K : never
}[keyof T['_']['columns']]

/**
 * A row of `T` as a raw bun:sqlite statement returns it, with its columns aliased to their drizzle names: drizzle's
 * row, except that JSON columns are still their text (drizzle parses them only in the queries it builds itself). The
 * hot paths use raw prepared statements, which cost a fraction of drizzle's per call; this keeps their row types
 * derived from the one schema all the same.
 */
export type RawRow<T extends Table> = {
  [K in keyof T['$inferSelect']]: K extends JsonColumns<T>
    ? string | Extract<T['$inferSelect'][K], null>
    : T['$inferSelect'][K]
}
