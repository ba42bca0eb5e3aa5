import { and, asc, count, desc, eq, gt, lt, or, sql, type SQL, type SQLWrapper } from 'drizzle-orm'
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core'
import type { Db } from '../../db/client'
import { BadRequestError } from '../../lib/errors'
import type { PageInfo } from './model'

const DEFAULT_PAGE_SIZE = 20

export type SortDirection = 'asc' | 'desc'

/** One way of ordering a list: the SQL expression, and how to read the same value from a fetched row. */
export interface SortKey<Row> {
  expression: SQLWrapper
  valueOf(row: Row): string | number | null
}

interface Cursor {
  value: string | number
  id: number
}

/**
 * Keyset pagination. The cursor is the sort value and id of the last item of a page, so a
 * page starts strictly after it whatever was added or removed meanwhile: items present for the whole walk come
 * exactly once and in order. The cursor also names its sort, so it cannot be replayed against another order.
 */
function encodeCursor(sortBy: string, direction: SortDirection, value: string | number, id: number): string {
  return Buffer.from(JSON.stringify([sortBy, direction, value, id])).toString('base64url')
}

function decodeCursor(after: string, sortBy: string, direction: SortDirection): Cursor {
  let parsed: unknown
  try {
    parsed = JSON.parse(Buffer.from(after, 'base64url').toString('utf8'))
  } catch {
    parsed = undefined
  }
  if (
    !Array.isArray(parsed) ||
    parsed.length !== 4 ||
    (typeof parsed[2] !== 'string' && typeof parsed[2] !== 'number') ||
    !Number.isSafeInteger(parsed[3])
  )
    throw new BadRequestError('after: not a cursor of this list; pass pageInfo.endCursor unchanged', 'INVALID_CURSOR')
  if (parsed[0] !== sortBy || parsed[1] !== direction)
    throw new BadRequestError(
      `after: the cursor belongs to sortBy=${String(parsed[0])}&sortOrder=${String(parsed[1])}; keep the sort of the first page`,
      'INVALID_CURSOR',
    )
  return { value: parsed[2], id: parsed[3] }
}

/** One order a list offers: the sort key, and the direction it takes when `sortOrder` is not sent. */
export interface SortOption<Row> {
  key: SortKey<Row>
  direction: SortDirection
}

/** The oldest-first order of lists that offer no other. */
export function byCreation<Row extends { createdAt: number }>(createdAt: SQLWrapper): { createdAt: SortOption<Row> } {
  return { createdAt: { key: { expression: createdAt, valueOf: (row) => row.createdAt }, direction: 'asc' } }
}

/** The orders of content lists: `name` A to Z ignoring case, `createdAt` oldest first, `updatedAt` newest first. */
export function contentSorts<Row extends { name: string; createdAt: number; updatedAt: number }>(table: {
  name: SQLWrapper
  createdAt: SQLWrapper
  updatedAt: SQLWrapper
}): Record<'name' | 'createdAt' | 'updatedAt', SortOption<Row>> {
  return {
    name: { key: { expression: sql`${table.name} COLLATE NOCASE`, valueOf: (row) => row.name }, direction: 'asc' },
    ...byCreation<Row>(table.createdAt),
    updatedAt: { key: { expression: table.updatedAt, valueOf: (row) => row.updatedAt }, direction: 'desc' },
  }
}

/** The `search` filter: `column` contains `text`, ignoring case (SQLite's `LIKE`), with its wildcards taken literally. */
export function nameContains(column: SQLWrapper, text: string): SQL {
  return sql`${column} LIKE ${`%${text.replace(/[\\%_]/g, (character) => `\\${character}`)}%`} ESCAPE '\\'`
}

type ListedTable = SQLiteTable & { id: SQLiteColumn; $inferSelect: { id: number } }

export interface ListRequest<Table extends ListedTable, SortBy extends string> {
  table: Table
  /** Conditions every listed row meets (undefined ones are skipped). */
  where: (SQL | undefined)[]
  sorts: Record<SortBy, SortOption<Table['$inferSelect']>>
  sortBy: SortBy
  query: { first?: number; after?: string; sortOrder?: SortDirection }
  /** Whether `endCursor` is issued; false for orders that change while being read. */
  cursors?: boolean
}

export interface ListPage<Row> {
  rows: Row[]
  pageInfo: PageInfo
  /** How many rows match in all, for the deprecated `count`; counted only when asked. */
  total(): number
}

/**
 * One page of a table's rows matching `where`: `first` rows after the cursor in the requested order (the id breaks
 * ties), and whether more follow.
 */
export function listPage<Table extends ListedTable, SortBy extends string>(
  db: Db,
  request: ListRequest<Table, SortBy>,
): ListPage<Table['$inferSelect']> {
  const { table, query, sortBy } = request
  const { key, direction: defaultDirection } = request.sorts[sortBy]
  const direction = query.sortOrder ?? defaultDirection
  const size = query.first ?? DEFAULT_PAGE_SIZE
  const ahead = direction === 'asc' ? gt : lt
  const order = direction === 'asc' ? asc : desc
  const filter = and(...request.where)
  let after: SQL | undefined
  if (query.after !== undefined) {
    const cursor = decodeCursor(query.after, sortBy, direction)
    after = or(ahead(key.expression, cursor.value), and(eq(key.expression, cursor.value), ahead(table.id, cursor.id)))
  }
  const listed = table as SQLiteTable
  const fetched = db
    .select()
    .from(listed)
    .where(and(filter, after))
    .orderBy(order(key.expression), order(table.id))
    .limit(size + 1)
    .all() as Table['$inferSelect'][]
  const rows = fetched.slice(0, size)
  const last = rows.at(-1)
  const lastValue = last ? key.valueOf(last) : null
  const endCursor =
    last && request.cursors !== false && lastValue !== null ? encodeCursor(sortBy, direction, lastValue, last.id) : null
  return {
    rows,
    pageInfo: { hasNextPage: fetched.length > size, endCursor },
    total: () => db.select({ n: count() }).from(listed).where(filter).get()?.n ?? 0,
  }
}

/** A list response that also fills the deprecated `data` (the page's items again) and `count` (all matches). */
export function withDeprecatedTotals<Item>(items: Item[], page: ListPage<unknown>) {
  return { items, pageInfo: page.pageInfo, data: items, count: page.total() }
}
