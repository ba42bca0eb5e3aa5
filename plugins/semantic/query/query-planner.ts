import type { AccessView } from '../semantic-model/access-policy'
import { InvalidQueryError } from '../errors'
import type { Expression, Literal, Reference, SelectStatement } from './query-ast'
import { childrenOf, keyOf, type ColumnType, type PlannedColumn, type QueryPlan, type Resolved } from './query-plan'
import { memberOf, type Cube, type Member, type SemanticModel, type View } from '../semantic-model/semantic-model'
import { closest } from './suggest'
import { DATE_RANGE, NUMBER_RANGE, numberInRange } from './value-range'

type Clause = 'SELECT' | 'WHERE' | 'GROUP BY' | 'HAVING' | 'ORDER BY'
type Source = { kind: 'cube'; cube: Cube } | { kind: 'view'; view: View }

const fail = (message: string): never => {
  throw new InvalidQueryError(message)
}

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase()

/**
 * `YYYY-MM-DD[ HH:MM[:SS[.fff]]]` (also with `T` and `Z`) as the stored `YYYY-MM-DD HH:MM:SS`, with the fraction of a
 * second when it has one (to the microsecond, trailing zeros dropped): cutting it off made `>= '... 00:19:04.5'` take
 * the row at 00:19:04. Compared as text, as SQLite does, `'... 00:19:04'` sorts before `'... 00:19:04.5'`, as it should.
 */
export function normalizeTime(value: string): string | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?)?(?:Z|[+-]00:?00)?$/.exec(
    value.trim(),
  )
  if (!match) return undefined
  const [, year, month, day, hour = '00', minute = '00', second = '00', fraction = ''] = match
  if (
    // Year 0 (1 BC): Postgres refused it, the other sources compared it.
    Number(year) < 1 ||
    Number(month) < 1 ||
    Number(month) > 12 ||
    Number(day) < 1 ||
    // The days the month has: '2024-02-30' was refused by DuckDB and Postgres and read as March 1 elsewhere.
    Number(day) > new Date(Date.UTC(Number(year), Number(month), 0)).getUTCDate() ||
    Number(hour) > 23 ||
    Number(minute) > 59 ||
    Number(second) > 59
  )
    return undefined
  const part = fraction.slice(0, 6).replace(/0+$/, '')
  return `${year}-${month}-${day} ${hour}:${minute}:${second}${part ? `.${part}` : ''}`
}

/** Which literal values a column of each type can be compared with (after the conversions of `literal`). */
const LITERAL_FITS: Record<ColumnType, (value: string | number | boolean) => boolean> = {
  string: (value) => typeof value === 'string',
  number: (value) => typeof value === 'number',
  time: (value) => typeof value === 'string',
  boolean: (value) => typeof value === 'boolean',
}
const TYPE_WORDS: Record<ColumnType, string> = {
  string: 'text',
  number: 'a number',
  time: 'a date',
  boolean: 'true or false',
}
const TYPE_HINTS: Record<ColumnType, (value: unknown) => string> = {
  // The value itself in quotes: the hint said ('0') whatever the value was.
  string: (value) => `the column holds text: write the value in quotes ('${String(value).replace(/'/g, "''")}')`,
  number: () => 'the column holds numbers',
  time: () => "write dates like '2024-01-31' or '2024-01-31 12:00:00'",
  boolean: () => 'the column holds true or false',
}

/** Resolves a parsed statement against one caller's view of the model: the only names a query can reach. */
class Planner {
  private readonly source: Source
  private readonly cubes = new Set<string>()
  private columns: PlannedColumn[] = []

  constructor(
    private readonly model: SemanticModel,
    private readonly view: AccessView,
    private readonly statement: SelectStatement,
  ) {
    this.source = this.findSource(statement.from.name)
  }

  private visibleCubes(): string[] {
    const names = [...this.model.cubes.values()]
      .filter((cube) => (this.view.cubes.get(cube.name)?.members.size ?? 0) > 0)
      .map((cube) => cube.name)
    const views = [...this.model.views.values()].filter(
      (view) => view.public && [...view.members.values()].some((entry) => this.view.canSee(entry.member)),
    )
    return [...names, ...views.map((view) => view.name)]
  }

  private findSource(name: string): Source {
    const visible = this.visibleCubes()
    const match = visible.find((candidate) => same(candidate, name))
    if (match !== undefined) {
      const cube = this.model.cubes.get(match)
      if (cube) return { kind: 'cube', cube }
      return { kind: 'view', view: this.model.views.get(match) as View }
    }
    const hint = closest(name, visible)
    return fail(
      `Unknown cube ${name}.${hint.length > 0 ? ` Did you mean ${hint.join(', ')}?` : ''} Cubes you can query: ${visible.join(', ') || 'none'}`,
    )
  }

  private visibleMembers(source: Source): string[] {
    if (source.kind === 'view')
      return [...source.view.members.values()]
        .filter((entry) => this.view.canSee(entry.member))
        .map((entry) => `${source.view.name}.${entry.name}`)
    return [...source.cube.dimensions.values(), ...source.cube.measures.values()]
      .filter((member) => this.view.canSee(member))
      .map((member) => member.path)
  }

  private lookup(source: Source, name: string): Member | undefined {
    if (source.kind === 'view') {
      const entry =
        source.view.members.get(name) ??
        [...source.view.members.values()].find((candidate) => same(candidate.name, name))
      return entry && this.view.canSee(entry.member) ? entry.member : undefined
    }
    const member =
      memberOf(source.cube, name) ??
      [...source.cube.dimensions.values(), ...source.cube.measures.values()].find((candidate) =>
        same(candidate.name, name),
      )
    return member && this.view.canSee(member) ? member : undefined
  }

  private member(ref: Reference): Member {
    let source = this.source
    const fromNames = [this.statement.from.name, this.statement.from.alias].filter(
      (name): name is string => name !== undefined,
    )
    if (ref.table !== undefined && !fromNames.some((name) => same(name, ref.table as string)))
      source = this.findSource(ref.table)
    const member = this.lookup(source, ref.name)
    const written = ref.table === undefined ? ref.name : `${ref.table}.${ref.name}`
    if (!member) {
      const candidates = this.visibleMembers(source)
      const hint = closest(`${source.kind === 'cube' ? source.cube.name : source.view.name}.${ref.name}`, candidates)
      return fail(
        `Unknown member ${written}.${hint.length > 0 ? ` Did you mean ${hint.join(', ')}?` : ''} Call serviceMeta to list the members you can query.`,
      )
    }
    this.cubes.add(member.cube)
    return member
  }

  private displayName(ref: Reference): string {
    if (ref.table === undefined || [this.statement.from.alias].includes(ref.table))
      return `${this.source.kind === 'cube' ? this.source.cube.name : this.source.view.name}.${ref.name}`
    return `${ref.table}.${ref.name}`
  }

  private literal(literal: Literal, against: ColumnType | undefined, clause: Clause): Resolved {
    const { value } = literal
    if (against === 'time' && typeof value === 'string') {
      const time = normalizeTime(value)
      if (time === undefined)
        fail(
          `${clause}: ${JSON.stringify(value)} is not a date (${DATE_RANGE}); write dates like '2024-01-31' or '2024-01-31 12:00:00'`,
        )
      return { kind: 'literal', value: time as string }
    }
    if (literal.date && typeof value === 'string') {
      // A date against a number, text or true/false member: SQLite and MariaDB compared it as something else and
      // answered, Postgres and DuckDB refused it in their own words.
      if (against !== undefined && against !== 'time')
        fail(`${clause}: DATE ${JSON.stringify(value)} is not ${TYPE_WORDS[against]}; ${TYPE_HINTS[against](value)}`)
      const time = normalizeTime(value)
      return time === undefined
        ? fail(`${clause}: ${JSON.stringify(value)} is not a date (${DATE_RANGE})`)
        : { kind: 'literal', value: time }
    }
    if (against === 'number' && typeof value === 'string') {
      const number = Number(value)
      if (value.trim() === '' || !Number.isFinite(number)) fail(`${clause}: ${JSON.stringify(value)} is not a number`)
      if (!numberInRange(number)) fail(`${clause}: ${JSON.stringify(value)} is out of range: ${NUMBER_RANGE}`)
      return { kind: 'literal', value: number }
    }
    // Whatever it is compared with: a whole number past what every source binds alike answers differently on each.
    if (typeof value === 'number' && !numberInRange(value)) fail(`${clause}: ${value} is out of range: ${NUMBER_RANGE}`)
    if (against === 'boolean' && typeof value === 'string' && /^(true|false)$/i.test(value))
      return { kind: 'literal', value: value.toLowerCase() === 'true' }
    if (against === 'boolean' && (value === 0 || value === 1)) return { kind: 'literal', value: value === 1 }
    // A value of another type than the column's: each database would answer something else (MySQL compares text
    // with 0 as true for every row, Postgres refuses, SQLite matches nothing), so none of them is asked.
    if (against !== undefined && value !== null && !LITERAL_FITS[against](value))
      fail(`${clause}: ${JSON.stringify(value)} is not ${TYPE_WORDS[against]}; ${TYPE_HINTS[against](value)}`)
    return { kind: 'literal', value }
  }

  private typeOf(expression: Resolved): ColumnType | undefined {
    switch (expression.kind) {
      case 'dimension':
        return expression.member.type
      case 'truncate':
        return 'time'
      case 'measure':
        return 'number'
      case 'aggregate':
        return expression.fn === 'min' || expression.fn === 'max' ? (expression.member?.type ?? 'number') : 'number'
      case 'column':
        return this.columns[expression.index]?.type
      default:
        return undefined
    }
  }

  private aliasColumn(name: string): number {
    return this.columns.findIndex((column) => column.name === name || same(column.name, name))
  }

  /** Resolves one expression in `clause`, with the rules of that clause. */
  resolve(expression: Expression, clause: Clause): Resolved {
    const scalar = (inner: Expression) => this.resolve(inner, clause)
    switch (expression.type) {
      case 'ref': {
        if (clause !== 'SELECT' && clause !== 'WHERE' && expression.table === undefined) {
          const index = this.aliasColumn(expression.name)
          if (index >= 0) return { kind: 'column', index }
        }
        const member = this.member(expression)
        if (member.kind === 'measure') {
          if (clause === 'WHERE')
            fail(`WHERE cannot filter on the measure ${member.path}; use HAVING MEASURE(${member.path}) ...`)
          if (clause === 'GROUP BY') fail(`GROUP BY takes dimensions, not the measure ${member.path}`)
          return { kind: 'measure', member }
        }
        return { kind: 'dimension', member }
      }
      case 'measure': {
        if (clause === 'WHERE' || clause === 'GROUP BY')
          fail(`${clause} cannot use MEASURE(); filter measures with HAVING`)
        const member = this.member(expression.ref)
        if (member.kind !== 'measure') fail(`MEASURE() takes a measure; ${member.path} is a dimension`)
        return { kind: 'measure', member: member as Extract<Member, { kind: 'measure' }> }
      }
      case 'truncate': {
        const member = this.member(expression.arg)
        if (member.kind !== 'dimension' || member.type !== 'time')
          fail(`DATE_TRUNC takes a time dimension; ${member.path} is not one`)
        return {
          kind: 'truncate',
          granularity: expression.granularity,
          member: member as Extract<Member, { kind: 'dimension' }>,
        }
      }
      case 'aggregate':
        return this.aggregate(expression, clause)
      case 'literal':
        return this.literal(expression, undefined, clause)
      case 'position': {
        if (expression.index > this.columns.length)
          fail(`${clause} position ${expression.index} is past the ${this.columns.length} selected columns`)
        return { kind: 'column', index: expression.index - 1 }
      }
      case 'compare': {
        const left = scalar(expression.left)
        const right =
          expression.right.type === 'literal'
            ? this.literal(expression.right, this.typeOf(left), clause)
            : scalar(expression.right)
        const resolvedLeft =
          expression.left.type === 'literal' ? this.literal(expression.left, this.typeOf(right), clause) : left
        return { kind: 'compare', operator: expression.operator, left: resolvedLeft, right }
      }
      case 'logical':
        return { kind: 'logical', operator: expression.operator, args: expression.args.map(scalar) }
      case 'not':
        return { kind: 'not', arg: scalar(expression.arg) }
      case 'in': {
        const arg = scalar(expression.arg)
        if (expression.list.length === 0) fail('IN needs at least one value')
        return {
          kind: 'in',
          arg,
          list: expression.list.map((item) => this.literal(item, this.typeOf(arg), clause)),
          negated: expression.negated,
        }
      }
      case 'between': {
        const arg = scalar(expression.arg)
        const type = this.typeOf(arg)
        return {
          kind: 'between',
          arg,
          low: this.literal(expression.low, type, clause),
          high: this.literal(expression.high, type, clause),
          negated: expression.negated,
        }
      }
      case 'like': {
        const arg = scalar(expression.arg)
        // LIKE matches text: on a number, a time or a flag each database answered something else (or an error).
        const type = this.typeOf(arg)
        if (type !== undefined && type !== 'string')
          fail(
            `${clause}: ${expression.caseInsensitive ? 'ILIKE' : 'LIKE'} matches text, and ${nameOf(arg, this.columns)} is ${TYPE_WORDS[type]}; compare it with =, <, > or BETWEEN`,
          )
        return {
          kind: 'like',
          arg,
          pattern: expression.pattern,
          caseInsensitive: expression.caseInsensitive,
          negated: expression.negated,
        }
      }
      case 'isNull':
        return { kind: 'isNull', arg: scalar(expression.arg), negated: expression.negated }
    }
  }

  private aggregate(expression: Extract<Expression, { type: 'aggregate' }>, clause: Clause): Resolved {
    const name = `${expression.fn.toUpperCase()}(${expression.distinct ? 'DISTINCT ' : ''}${expression.arg === '*' ? '*' : this.displayName(expression.arg)})`
    if (clause === 'WHERE' || clause === 'GROUP BY') fail(`${clause} cannot use ${name}; filter aggregates with HAVING`)
    if (expression.arg === '*') return { kind: 'aggregate', fn: 'count', distinct: false, member: null }
    const member = this.member(expression.arg)
    if (member.kind === 'measure') {
      const matching =
        member.type === expression.fn ||
        (member.type === 'count_distinct' && expression.fn === 'count' && expression.distinct)
      if (!matching) fail(`${name}: ${member.path} is a ${member.type} measure; select it as MEASURE(${member.path})`)
      return { kind: 'measure', member }
    }
    if ((expression.fn === 'sum' || expression.fn === 'avg') && member.type !== 'number')
      fail(`${name}: ${member.path} is not a number`)
    return { kind: 'aggregate', fn: expression.fn, distinct: expression.distinct, member }
  }

  private columnName(expression: Expression, resolved: Resolved): string {
    switch (expression.type) {
      case 'ref':
        return this.displayName(expression)
      case 'measure':
        return this.displayName(expression.ref)
      case 'truncate':
        return `${this.displayName(expression.arg)}.${expression.granularity}`
      case 'aggregate':
        if (resolved.kind === 'measure') return resolved.member.path
        if (expression.arg === '*') return 'count'
        return `${expression.fn}${expression.distinct ? '_distinct' : ''}(${this.displayName(expression.arg)})`
      default:
        return `column`
    }
  }

  plan(): QueryPlan {
    const { statement } = this
    for (const item of statement.columns) {
      if (!['ref', 'measure', 'truncate', 'aggregate'].includes(item.expression.type))
        fail('SELECT takes members, MEASURE(cube.measure), DATE_TRUNC(...) and COUNT/MIN/MAX/SUM/AVG of dimensions')
      const expression = this.resolve(item.expression, 'SELECT')
      const aggregated = expression.kind === 'measure' || expression.kind === 'aggregate'
      this.columns.push({
        name: item.alias ?? this.columnName(item.expression, expression),
        type: this.typeOf(expression) ?? 'string',
        expression,
        aggregated,
      })
    }
    const grouping = new Map<string, Resolved>()
    for (const column of this.columns) if (!column.aggregated) grouping.set(keyOf(column.expression), column.expression)
    for (const item of statement.groupBy) {
      let expression = this.resolve(item, 'GROUP BY')
      if (expression.kind === 'column') {
        const column = this.columns[expression.index]
        if (column.aggregated) fail(`GROUP BY cannot use the aggregated column ${column.name}`)
        expression = column.expression
      }
      if (expression.kind !== 'dimension' && expression.kind !== 'truncate')
        fail('GROUP BY takes dimensions, DATE_TRUNC(...), aliases or positions')
      grouping.set(keyOf(expression), expression)
    }
    const grouped = (expression: Resolved): boolean => {
      if (expression.kind === 'dimension' || expression.kind === 'truncate') return grouping.has(keyOf(expression))
      if (
        expression.kind === 'measure' ||
        expression.kind === 'aggregate' ||
        expression.kind === 'literal' ||
        expression.kind === 'column'
      )
        return true
      return childrenOf(expression).every(grouped)
    }
    let where = statement.where ? this.resolve(statement.where, 'WHERE') : undefined
    let having = statement.having ? this.resolve(statement.having, 'HAVING') : undefined
    if (having && !grouped(having)) fail('HAVING can use measures, aggregates and the dimensions the query groups by')
    if (having) {
      // A condition of HAVING on grouped dimensions alone (`HAVING customers.region = 'Europe'`) keeps the same
      // groups as in WHERE, and goes there: MariaDB refuses HAVING on an expression of the grouped text.
      const rowLevel = (expression: Resolved): boolean =>
        expression.kind === 'measure' || expression.kind === 'aggregate'
          ? false
          : expression.kind === 'column'
            ? !this.columns[expression.index].aggregated
            : childrenOf(expression).every(rowLevel)
      // Only a condition on a grouped dimension: one of literals alone (`HAVING 1 = 0`) keeps or drops the one row of
      // an ungrouped query, which WHERE would not.
      const namesDimension = (expression: Resolved): boolean =>
        expression.kind === 'dimension' ||
        expression.kind === 'truncate' ||
        expression.kind === 'column' ||
        childrenOf(expression).some(namesDimension)
      const movable = (expression: Resolved) => rowLevel(expression) && namesDimension(expression)
      const conjuncts = having.kind === 'logical' && having.operator === 'and' ? having.args : [having]
      const moved = conjuncts.filter(movable).map((conjunct) => withoutColumns(conjunct, this.columns))
      const kept = conjuncts.filter((conjunct) => !movable(conjunct))
      if (moved.length) {
        const conditions = where ? [where, ...moved] : moved
        where = conditions.length === 1 ? conditions[0] : { kind: 'logical', operator: 'and', args: conditions }
        having =
          kept.length === 0 ? undefined : kept.length === 1 ? kept[0] : { kind: 'logical', operator: 'and', args: kept }
      }
    }
    const orderBy = statement.orderBy.map((item) => {
      let expression = this.resolve(item.expression, 'ORDER BY')
      const index = this.columns.findIndex((column) => keyOf(column.expression) === keyOf(expression))
      if (index >= 0) expression = { kind: 'column', index }
      if (!grouped(expression))
        fail('ORDER BY can use selected columns, measures, aggregates and the dimensions the query groups by')
      return { expression, descending: item.descending, nulls: item.nulls }
    })
    const fromCube = this.source.kind === 'cube' ? this.source.cube.name : this.source.view.root
    this.cubes.add(fromCube)
    return {
      fromCube,
      columns: this.columns,
      where,
      grouping: [...grouping.values()],
      having,
      orderBy,
      limit: statement.limit,
      offset: statement.offset,
      cubes: this.cubes,
    }
  }
}

/** How a message names an expression: its member, or the select item it refers to. */
function nameOf(expression: Resolved, columns: PlannedColumn[]): string {
  if (expression.kind === 'column') return columns[expression.index]?.name ?? 'the column'
  if ('member' in expression && expression.member) return expression.member.path
  return 'the value'
}

/** `expression` with its select-item references (aliases, positions) replaced by the items' own expressions. */
function withoutColumns(expression: Resolved, columns: PlannedColumn[]): Resolved {
  const map = (entry: Resolved) => withoutColumns(entry, columns)
  switch (expression.kind) {
    case 'column':
      return columns[expression.index].expression
    case 'compare':
      return { ...expression, left: map(expression.left), right: map(expression.right) }
    case 'logical':
      return { ...expression, args: expression.args.map(map) }
    case 'not':
    case 'like':
    case 'isNull':
      return { ...expression, arg: map(expression.arg) } as Resolved
    case 'in':
      return { ...expression, arg: map(expression.arg), list: expression.list.map(map) }
    case 'between':
      return { ...expression, arg: map(expression.arg), low: map(expression.low), high: map(expression.high) }
    default:
      return expression
  }
}

/** Resolves `statement` for a caller; every member must be visible to them. Throws `InvalidQueryError`. */
export function planQuery(model: SemanticModel, view: AccessView, statement: SelectStatement): QueryPlan {
  return new Planner(model, view, statement).plan()
}
