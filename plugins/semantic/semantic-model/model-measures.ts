import type { CubeDraft } from './model-cubes'
import { pluralWords, singularWords, titleOfName, titleWords } from './model-naming'
import { type ColumnFacts, type Generation, type Plan, roleWords, safeName } from './model-plan'

// What a numeric column is, by its words.
const KEY_WORDS = new Set(['id', 'key', 'code', 'zip', 'postal', 'postcode', 'phone', 'fax', 'no', 'ssn', 'ean', 'sku'])
/**
 * Last words of a number column that names who or what a row points at (`author`, `created_by`, `user` where no
 * users table is in the database): no quantity.
 */
const REFERENCE_WORDS = new Set([
  'user',
  'customer',
  'client',
  'employee',
  'member',
  'person',
  'vendor',
  'supplier',
  'manager',
  'author',
  'owner',
  'creator',
  'assignee',
  'reporter',
  'editor',
  'reviewer',
  'parent',
  'buyer',
  'seller',
  'sender',
  'recipient',
  'ref',
  'fk',
  'by',
])
const CALENDAR_WORDS = new Set(['year', 'month', 'day', 'week', 'quarter', 'hour', 'minute'])
const MONEY_WORDS = new Set([
  'amount',
  'total',
  'cost',
  'costs',
  'revenue',
  'fee',
  'fees',
  'sales',
  'charge',
  'charges',
  'freight',
  'salary',
  'balance',
  'tax',
  'payment',
  'paid',
  'spend',
  'spent',
  'income',
  'profit',
  'margin',
  'subtotal',
  'budget',
  'shipping',
  'wage',
  'commission',
])
/** Money words that say a sales row's value (its revenue), not a cost around it. */
const REVENUE_WORDS = new Set(['amount', 'total', 'revenue', 'sales', 'subtotal', 'payment'])
const PRICE_WORDS = new Set(['price', 'rate', 'msrp'])
const QUANTITY_WORDS = new Set(['quantity', 'qty', 'quantities'])
/** Counts of things held or planned, not sold: `units_in_stock`, `units_on_order`, `quantity_per_unit`. */
const HELD_WORDS = new Set(['stock', 'reorder', 'per', 'on', 'available', 'min', 'max'])
const MEASURED_WORDS = new Set([
  'duration',
  'length',
  'milliseconds',
  'ms',
  'seconds',
  'minutes',
  'hours',
  'days',
  'bytes',
  'size',
  'weight',
  'height',
  'width',
  'depth',
  'age',
  'runtime',
  'distance',
])
/** Measured things that add up across rows: a load's weight, a trip's distance (not a track's length or a size). */
const ADDITIVE_WORDS = new Set(['weight', 'kg', 'kgs', 'tons', 'tonnes', 'lbs', 'volume', 'distance', 'km', 'miles'])
/** Averaged first, their sum after: ratings and shares, and places in an order (a grade level, an attempt, a rank). */
const AVERAGED_WORDS = new Set(['rating', 'score', 'percent', 'percentage', 'ratio', 'pct', 'stars', 'discount'])
for (const word of ['level', 'attempt', 'rank', 'tier', 'stage', 'position']) AVERAGED_WORDS.add(word)

/** Words of a time column that say when a row was changed: no event of the business. */
const BOOKKEEPING_TIME = new Set(['updated', 'update', 'modified', 'last', 'deleted'])
const REVENUE_SYNONYMS = ['revenue', 'sales', 'turnover', 'income', 'takings']
const ITEMS_SOLD_SYNONYMS = ['items sold', 'units sold', 'quantity sold']

/** A cube's measures so far, its revenue if it has one, and whether its rows are a sale's lines. */
interface CubeMeasures {
  list: Array<Record<string, unknown>>
  revenue?: Record<string, unknown>
  /** A unit price beside a quantity: each row is a line of a sale. */
  isLine: boolean
}

/** Measures by what each column is: a count, then per number column, then a line's revenue. */
export function measuresOf(generation: Generation, draft: CubeDraft): CubeMeasures {
  const { plan, columnNamed, keyColumns, sqlOf } = draft
  const count: Record<string, unknown> = {
    name: draft.unique('count', 'row_count'),
    type: 'count',
    title: `Number of ${titleWords(plan.plural).toLowerCase()}`,
  }
  const quantity = columnNamed(
    (column) =>
      column.type === 'number' &&
      !keyColumns.has(column.name) &&
      (column.words.some((word) => QUANTITY_WORDS.has(word)) || column.words.join(' ') === 'units') &&
      !column.words.some((word) => HELD_WORDS.has(word)),
  )
  const price = columnNamed(
    (column) =>
      column.type === 'number' &&
      !keyColumns.has(column.name) &&
      column.words.some((word) => PRICE_WORDS.has(word)) &&
      !column.words.some((word) => MONEY_WORDS.has(word)),
  )
  const measures: CubeMeasures = { list: [count], isLine: quantity !== undefined && price !== undefined }
  const hasTime = plan.columns.some((column) => column.type === 'time')
  for (const column of plan.columns) columnMeasures(generation, draft, measures, column, { price, quantity, hasTime })
  // A line's revenue: its unit price times its quantity (less a fractional discount beside them).
  if (measures.isLine && !measures.revenue && price && quantity) {
    const discount = columnNamed(
      (column) => column.type === 'number' && column.words.includes('discount') && !keyColumns.has(column.name),
    )
    const value = `${sqlOf(price.name)} * ${sqlOf(quantity.name)}${discount ? ` * (1 - ${sqlOf(discount.name)})` : ''}`
    const measure: Record<string, unknown> = { name: draft.unique('revenue', 'line_revenue'), type: 'sum', sql: value }
    measures.list.push(measure)
    markRevenue(generation, plan, measures, measure)
    if (discount)
      generation.check.push(
        `${plan.table.name}: revenue takes ${discount.name} as a fraction (0.1 = 10% off); change it if it is an amount`,
      )
  }
  if (measures.revenue && measures.isLine) count.synonyms = ['line items', 'order lines', 'sales lines']
  return measures
}

function markRevenue(
  generation: Generation,
  plan: Plan,
  measures: CubeMeasures,
  measure: Record<string, unknown>,
): void {
  measure.title = 'Revenue'
  measure.synonyms = REVENUE_SYNONYMS
  measure.format = 'currency'
  measures.revenue = measure
  generation.inferred.push(`${plan.table.name}: revenue = ${String(measure.sql)}`)
}

/**
 * The measures of one number column, by what its words say it is: a price's average, lowest and highest; a length
 * or size averaged and maxed (a weight or distance summed first); a rate, a rating or a place in an order averaged;
 * money summed and averaged (a sale's revenue, with its largest and smallest); a line's quantity as units sold;
 * anything else summed and averaged; each of them summed too. Keys, codes and years get none.
 */
function columnMeasures(
  generation: Generation,
  draft: CubeDraft,
  measures: CubeMeasures,
  column: ColumnFacts,
  line: { price?: ColumnFacts; quantity?: ColumnFacts; hasTime: boolean },
): void {
  const { unique, ownName } = draft
  if (column.type !== 'number' || draft.keyColumns.has(column.name)) return
  const words = column.words
  const title = draft.columnTitle(column)
  const lowerTitle = title.charAt(0).toLowerCase() + title.slice(1)
  const sql = generation.q(column.name) === column.name ? column.name : draft.sqlOf(column.name)
  const has = (set: Set<string>) => words.some((word) => set.has(word))
  const sum = () => {
    const measure: Record<string, unknown> = {
      name: unique(`total_${safeName(column.name)}`, `sum_of_${safeName(column.name)}`),
      type: 'sum',
      sql,
      title: `Total ${lowerTitle}`,
    }
    measures.list.push(measure)
    return measure
  }
  const aggregate = (type: 'avg' | 'max' | 'min', word: string) => {
    const measure: Record<string, unknown> = {
      name: unique(`${word}_${safeName(column.name)}`, `${type}_of_${safeName(column.name)}`),
      type,
      sql,
      title: `${word.charAt(0).toUpperCase()}${word.slice(1)} ${lowerTitle}`,
    }
    measures.list.push(measure)
    return measure
  }
  const { isLine } = measures
  if (has(KEY_WORDS) || has(CALENDAR_WORDS) || draft.foreignColumns.has(column.name)) return
  // A reference without a key's suffix (`user` beside a users table, `author`): its sum ("Total user") is no number
  // anyone asks for, and would answer "orders by user" as one; it stays a dimension to break down by.
  if (generation.tableWords.has(singularWords(column.name).join(' ')) || REFERENCE_WORDS.has(words.at(-1) ?? '')) return
  // Every number that is no key has its sum, as a model's author expects; a price's, a length's or a rate's comes
  // after the measures people ask of it, so a question that names only the column is answered by those.
  if (column === line.price || (has(PRICE_WORDS) && !has(MONEY_WORDS))) {
    aggregate('avg', 'average').format = 'currency'
    aggregate('min', 'lowest').format = 'currency'
    aggregate('max', 'highest').format = 'currency'
    // Not money to rank by: "which category grew fastest" is its sales, never its prices added up.
    sum()
  } else if ((has(MEASURED_WORDS) || has(ADDITIVE_WORDS)) && !has(MONEY_WORDS)) {
    // "Total weight shipped": weights and distances add up, so their sum comes first; a length's or size's after.
    const additive = has(ADDITIVE_WORDS)
    if (additive) sum()
    aggregate('avg', 'average')
    aggregate(
      'max',
      has(new Set(['size', 'bytes', 'weight', 'height', 'width', 'depth', ...ADDITIVE_WORDS])) ? 'largest' : 'longest',
    )
    if (!additive) sum()
  } else if (has(AVERAGED_WORDS) && !(column.words.includes('discount') && !isLine)) {
    aggregate('avg', 'average')
    sum()
  } else if (has(MONEY_WORDS)) {
    const total = sum()
    total.format = 'currency'
    const average = aggregate('avg', 'average')
    average.format = 'currency'
    if (!measures.revenue && has(REVENUE_WORDS) && (isLine || line.hasTime)) {
      markRevenue(generation, draft.plan, measures, total)
      if (!isLine) {
        // A sale's own value: its average, largest and smallest are what people ask of orders.
        average.title = `Average ${ownName} value`
        average.synonyms = [...new Set([`average ${lowerTitle}`, 'average order value', 'average sale', 'aov'])]
        const largest = aggregate('max', 'largest')
        largest.title = `Largest ${ownName}`
        largest.synonyms = [`biggest ${ownName}`, `highest ${lowerTitle}`]
        largest.format = 'currency'
        const smallest = aggregate('min', 'smallest')
        smallest.title = `Smallest ${ownName}`
        smallest.synonyms = [`lowest ${lowerTitle}`]
        smallest.format = 'currency'
      }
    }
  } else if (column === line.quantity) {
    const total = sum()
    if (isLine) {
      total.title = 'Units sold'
      total.synonyms = [...ITEMS_SOLD_SYNONYMS, `${titleOfName(column.name).toLowerCase()} sold`]
    }
  } else {
    // A number that is neither money nor measured (a grant, a count of pieces): its total, and its average over the
    // rows that have one, which a total over all rows divided by their number is not where some are empty.
    sum()
    aggregate('avg', 'average')
  }
}

/** What a cube's revenue tells the others: which cubes are the sales counted, and which orders a line's rolls up to. */
export function recordRevenue(generation: Generation, plan: Plan, measures: CubeMeasures): void {
  const { revenue, isLine } = measures
  if (!revenue) return
  if (isLine) {
    for (const join of plan.joins)
      if ((generation.planOf.get(join.target) as Plan).columns.some((column) => column.type === 'time'))
        generation.salesHeaders.add((generation.planOf.get(join.target) as Plan).name)
  } else generation.salesHeaders.add(plan.name)
  generation.revenues.set(plan.name, revenue)
  if (isLine)
    generation.lineHeaders.set(
      plan.name,
      plan.joins.map((join) => (generation.planOf.get(join.target) as Plan).name),
    )
}

/**
 * Distinct counts of the entities the table references, where its rows are events (an order, a payment, a sale's
 * line: no name of their own, a date): "how many customers bought". A customer's address or store counted is only
 * noise. A bridge (a key of references, a film's categories) counts the things on each side: "films in each
 * category" are the films it names, not its rows (without declared keys: two references and nothing else but
 * dates).
 */
export function distinctCounts(
  generation: Generation,
  draft: CubeDraft,
  label: string | undefined,
  measures: CubeMeasures,
): Array<Record<string, unknown>> {
  const { plan } = draft
  const { isLine } = measures
  const joinColumns = new Set(plan.joins.map((join) => join.column))
  const bridge =
    (plan.primaryKey.length >= 2 && plan.primaryKey.some((key) => joinColumns.has(key))) ||
    (plan.primaryKey.length === 0 &&
      joinColumns.size >= 2 &&
      plan.columns.every((column) => joinColumns.has(column.name) || column.type === 'time'))
  const events =
    isLine ||
    bridge ||
    measures.revenue !== undefined ||
    (label === undefined &&
      plan.columns.some((column) => column.type === 'time' && !column.words.some((word) => BOOKKEEPING_TIME.has(word))))
  const counts: Array<Record<string, unknown>> = []
  const distinctTargets = new Set<string>()
  for (const join of events ? plan.joins : []) {
    if (join.target === plan.table.name) continue
    // A line's own order is no entity to count from its lines: the orders' count says it, without the trap.
    const header = (generation.planOf.get(join.target) as Plan).columns.some((column) => column.type === 'time')
    if (isLine && header) continue
    const role = roleWords(join.column, join.target)
    const words = role ?? singularWords(join.target)
    const key = words.join(' ')
    if (distinctTargets.has(key)) continue
    distinctTargets.add(key)
    const column = plan.columns.find((entry) => entry.name === join.column) as ColumnFacts
    const pluralTitle = titleWords([...words.slice(0, -1), ...pluralWords(words[words.length - 1] ?? '')])
    counts.push({
      name: draft.unique(`distinct_${safeName(words.join('_'))}`, `distinct_${safeName(column.name)}`),
      type: 'count_distinct',
      sql: generation.q(column.name) === column.name ? column.name : draft.sqlOf(column.name),
      // The cube's own words stay out of the title: "orders in 1997" is no question about products.
      title: `Number of different ${pluralTitle.toLowerCase()}`,
      description: `How many different ${pluralTitle.toLowerCase()} these ${titleWords(plan.plural).toLowerCase()} name.`,
      synonyms: [`distinct ${pluralTitle.toLowerCase()}`, `unique ${pluralTitle.toLowerCase()}`],
    })
  }
  return counts
}
