import { Type, type TSchema } from '@sinclair/typebox'
import { t } from 'elysia'

/** Building blocks shared by the management schemas. */
/** A positive integer id in a path or query, where it arrives as text. */
export const Id = t.Integer({ minimum: 1 })
/**
 * A positive integer id in a JSON body: JSON numbers only, as every body integer of the API takes them (`"7"` is the
 * wrong type, not a number to convert). Elysia's own integer would read text too, but only in these schemas.
 */
export const BodyId = Type.Integer({ minimum: 1 })
/** A body integer within bounds, JSON numbers only (see `BodyId`). */
export const BodyInteger = (options: { minimum: number; maximum: number; description: string }) => Type.Integer(options)
export const Timestamp = t.String({ description: 'ISO 8601 date and time' })
/** A name shows in lists and pickers: one of only spaces would be an empty entry no one can tell apart. */
export const Name = t.String({
  minLength: 1,
  maxLength: 200,
  pattern: '\\S',
  description: 'Text that is not blank (not only white space)',
})
export const Nullable = <T extends TSchema>(schema: T) => t.Union([schema, t.Null()])
/** Semantic SQL over the deployment's cubes, as `POST .../sql` takes it. */
export const SemanticSql = t.String({
  minLength: 1,
  maxLength: 100_000,
  pattern: '\\S', // a query of only white space asks for nothing
  description: 'Semantic SQL, e.g. `SELECT MEASURE(orders.count) FROM orders`',
})

export const PageInfo = t.Object({
  hasNextPage: t.Boolean(),
  /** Pass as `after` to get the next page; null when the page is empty or cursors are unavailable. */
  endCursor: Nullable(t.String()),
})
export type PageInfo = typeof PageInfo.static

export const PageQuery = {
  first: t.Optional(t.Integer({ minimum: 1, maximum: 100, description: 'Page size, default 20' })),
  after: t.Optional(
    t.String({ minLength: 1, maxLength: 4096, description: '`pageInfo.endCursor` of the previous page' }),
  ),
}
export const SortOrder = t.Optional(t.Union([t.Literal('asc'), t.Literal('desc')]))
/** The orders of content lists (folders, reports, workbooks). */
export const ContentSortBy = [t.Literal('name'), t.Literal('createdAt'), t.Literal('updatedAt')] as const

/** A page of a list: its items and where the next page starts. */
export const ListResponse = <T extends TSchema>(item: T) => t.Object({ items: t.Array(item), pageInfo: PageInfo })

/** A page of a list renamed in v0.1.x, which still fills the deprecated `data` and `count` of its old form. */
export const ListResponseWithTotals = <T extends TSchema>(item: T, noun: string) =>
  t.Object({
    items: t.Array(item),
    pageInfo: PageInfo,
    data: t.Array(item, { deprecated: true }),
    count: t.Integer({ deprecated: true, description: `Total number of matching ${noun}` }),
  })
