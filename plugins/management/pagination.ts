import { and, asc, count, desc, eq, gt, lt, or, sql, type SQL, type SQLWrapper } from 'drizzle-orm'
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core'
import { first, type Db } from '../../db/client'
import type { TextRules } from '../../db/text-rules'
import { BadRequestError } from '../../lib/errors'
import type { PageInfo } from './model'

const DEFAULT_PAGE_SIZE = 20

export type SortDirection = 'asc' | 'desc'

/** One way of ordering a list: the SQL expression, and how to read the same value from a fetched row. */
export interface SortKey<Row> {
  expression: SQLWrapper
  valueOf(row: Row): string | number | null
  /** A cursor's value as `expression` compares it (the value itself unless told). */
  bind?(value: string | number): SQLWrapper
  /** Whether the value may be NULL: NULL sorts as the smallest value, as SQLite orders it (Postgres would not). */
  nullable?: boolean
  /** Whether the values are text; else they are numbers (times in milliseconds). */
  text?: true
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

function decodeCursor(after: string, sortBy: string, direction: SortDirection, key: SortKey<unknown>): Cursor {
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
  // A value of another type than the sort's (an edited cursor) would compare as text with numbers, differently on
  // each database.
  if (key.text ? typeof parsed[2] !== 'string' : !Number.isFinite(parsed[2]))
    throw new BadRequestError('after: not a cursor of this list; pass pageInfo.endCursor unchanged', 'INVALID_CURSOR')
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

/**
 * The orders of content lists: `name` A to Z ignoring case (as the storage's `text` folds it, in the sort and in the
 * cursor's bound value alike), `createdAt` oldest first, `updatedAt` newest first.
 */
export function contentSorts<Row extends { name: string; createdAt: number; updatedAt: number }>(
  text: TextRules,
  table: { name: SQLWrapper; createdAt: SQLWrapper; updatedAt: SQLWrapper },
): Record<'name' | 'createdAt' | 'updatedAt', SortOption<Row>> {
  const fold = text.fold
  return {
    name: {
      key: { expression: fold(table.name), valueOf: (row) => row.name, bind: fold, text: true },
      direction: 'asc',
    },
    ...byCreation<Row>(table.createdAt),
    updatedAt: { key: { expression: table.updatedAt, valueOf: (row) => row.updatedAt }, direction: 'desc' },
  }
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
  /**
   * A condition on fetched rows, for what one SQL text cannot ask of both databases (a field inside a JSON value):
   * the rows matching `where` are then read ahead in batches until the page is full.
   */
  keep?: (row: Table['$inferSelect']) => boolean
}

export interface ListPage<Row> {
  rows: Row[]
  pageInfo: PageInfo
  /** How many rows match in all, for the deprecated `count`; counted only when asked. */
  total(): Promise<number>
}

/** How many rows a list with a `keep` condition reads at a time. */
const READ_AHEAD = 200

/**
 * One page of a table's rows matching `where` (and `keep`): `first` rows after the cursor in the requested order
 * (the id breaks ties), and whether more follow.
 */
export async function listPage<Table extends ListedTable, SortBy extends string>(
  db: Db,
  request: ListRequest<Table, SortBy>,
): Promise<ListPage<Table['$inferSelect']>> {
  type Row = Table['$inferSelect']
  const { table, query, sortBy, keep } = request
  const { key, direction: defaultDirection } = request.sorts[sortBy]
  const direction = query.sortOrder ?? defaultDirection
  const size = query.first ?? DEFAULT_PAGE_SIZE
  const ahead = direction === 'asc' ? gt : lt
  // NULLs placed explicitly only where they can occur: SQLite puts them first going up, Postgres last.
  const order = (expression: SQLWrapper) =>
    key.nullable
      ? sql`${expression} ${sql.raw(direction === 'asc' ? 'asc nulls first' : 'desc nulls last')}`
      : (direction === 'asc' ? asc : desc)(expression)
  const filter = and(...request.where)
  /** The rows strictly after (`value`, `id`) in this order. */
  const after = (cursor: Cursor | undefined): SQL | undefined => {
    if (!cursor) return undefined
    const value = key.bind ? key.bind(cursor.value) : cursor.value
    return or(ahead(key.expression, value), and(eq(key.expression, value), ahead(table.id, cursor.id)))
  }
  const listed = table as SQLiteTable
  const read = async (from: Cursor | undefined, limit: number) =>
    (await db
      .select()
      .from(listed)
      .where(and(filter, after(from)))
      .orderBy(order(key.expression), order(table.id))
      .limit(limit)) as Row[]
  // A cursor cannot stand on a NULL value, so reading ahead needs a sort key without them.
  if (keep && key.nullable) throw new Error(`Sorting by ${sortBy} cannot be combined with a keep condition`)
  /** Rows after `from` that `keep` keeps, up to `limit`, read `READ_AHEAD` at a time. */
  const readKept = async (from: Cursor | undefined, limit: number): Promise<Row[]> => {
    const kept: Row[] = []
    for (;;) {
      const batch = await read(from, READ_AHEAD)
      for (const row of batch) if (keep!(row) && kept.push(row) >= limit) return kept
      const last = batch.at(-1)
      if (batch.length < READ_AHEAD || !last) return kept
      from = { value: key.valueOf(last)!, id: last.id }
    }
  }
  const start = query.after === undefined ? undefined : decodeCursor(query.after, sortBy, direction, key)
  const fetched = keep ? await readKept(start, size + 1) : await read(start, size + 1)
  const rows = fetched.slice(0, size)
  const last = rows.at(-1)
  const lastValue = last ? key.valueOf(last) : null
  const endCursor =
    last && request.cursors !== false && lastValue !== null ? encodeCursor(sortBy, direction, lastValue, last.id) : null
  return {
    rows,
    pageInfo: { hasNextPage: fetched.length > size, endCursor },
    total: async () => {
      if (keep) return (await readKept(undefined, Number.POSITIVE_INFINITY)).length
      // Postgres counts in bigint, which its driver may hand back as a string.
      return Number((await first(db.select({ n: count() }).from(listed).where(filter)))?.n ?? 0)
    },
  }
}

/** A list response that also fills the deprecated `data` (the page's items again) and `count` (all matches). */
export async function withDeprecatedTotals<Item>(items: Item[], page: ListPage<unknown>) {
  return { items, pageInfo: page.pageInfo, data: items, count: await page.total() }
}
