import type { AccessView, RowRule } from '../semantic-model/access-policy'
import { InvalidQueryError } from '../errors'
import { planJoins, type JoinTree } from '../semantic-model/join-graph'
import type { AggregateFunction } from '../query/query-ast'
import { type ColumnType, type QueryPlan, type Resolved } from '../query/query-plan'
import { normalizeTime } from '../query/query-planner'
import { isReservedWord } from '../query/sql-names'
import { ruleValueFor } from '../query/value-range'
import type { Cube, Dimension, Edge, Measure, SemanticModel } from '../semantic-model/semantic-model'
import { renderTemplate } from '../semantic-model/templates'
import type { Dialect, Parameter } from '../sources/dialects/dialect'

// Parameters are written as markers while compiling (parts are built out of order, and one part may be written
// twice), then numbered in the order the final text reads them: `?` dialects bind by position.
const MARKER = /\u0001(\d+)\u0001/g

export type { Parameter }

/** Parameterised SQL in one source's dialect: user values only ever travel in `params`, never in `sql`. */
export interface CompiledQuery {
  sql: string
  params: Parameter[]
  columns: Array<{ name: string; type: ColumnType }>
  /**
   * Average columns, answered as the exact quotient of their sum and count: the SQL selects both after the
   * visible columns (at `sum` and `count`). A database's own AVG is a double on SQLite and DuckDB, whose last bit
   * can round the 15th digit differently from another source's exact decimal average.
   */
  averages: Array<{ index: number; sum: number; count: number }>
}

/** A comparison read the other way round (`'1998-01-01' < t` is `t > '1998-01-01'`). */
const FLIPPED = { '=': '=', '<>': '<>', '<': '>', '<=': '>=', '>': '<', '>=': '<=' } as const

const fail = (message: string): never => {
  throw new InvalidQueryError(message)
}

class Compiler {
  readonly params: Parameter[] = []
  private readonly tree: JoinTree

  constructor(
    private readonly model: SemanticModel,
    private readonly view: AccessView,
    private readonly plan: QueryPlan,
    private readonly dialect: Dialect,
  ) {
    this.tree = planJoins(model, plan.cubes, plan.fromCube)
  }

  private param(value: string | number | boolean | null): string {
    if (value === null) return 'NULL'
    this.params.push(typeof value === 'boolean' ? this.dialect.booleanValue(value) : value)
    return `\u0001${this.params.length - 1}\u0001`
  }

  private alias(cube: string): string {
    return this.dialect.quoteIdentifier(cube)
  }

  private column(index: number): string {
    return this.dialect.quoteIdentifier(`__c${index}`)
  }

  private cube(name: string): Cube {
    return this.model.cubes.get(name) as Cube
  }

  /** Renders a cube's own template: `{CUBE}` and the cube's name become its alias, `{member}` that dimension. */
  private template(cube: Cube, sql: string): string {
    // A column named by a reserved word (a dimension `from` without `sql` reads `{CUBE}.from`) is quoted: SQLite
    // refuses the bare word even after a dot.
    const column = /^\{CUBE\}\.([A-Za-z_][A-Za-z0-9_]*)$/.exec(sql)
    if (column && isReservedWord(column[1]))
      return `${this.alias(cube.name)}.${this.dialect.quoteIdentifier(column[1])}`
    return renderTemplate(sql, (reference) => {
      const own = reference.head === 'CUBE' || reference.head === cube.name
      const name = reference.tail ?? (own ? undefined : reference.head)
      return name === undefined
        ? this.alias(cube.name)
        : `(${this.template(cube, (cube.dimensions.get(name) as Dimension).sql)})`
    })
  }

  dimension(member: Dimension): string {
    const sql = this.template(this.cube(member.cube), member.sql)
    // An expression (`{CUBE}.discount > 0`) is bracketed: comparing it must not depend on operator precedence.
    return /^[\w."`]+$/.test(sql) ? sql : `(${sql})`
  }

  /**
   * A dimension as the query compares, groups and aggregates it: text exactly (see `Dialect.exactText`), a time
   * kept as text in one form (see `Dialect.textTime`).
   */
  private value(member: Dimension): string {
    const sql = this.dimension(member)
    if (member.type === 'string') return this.dialect.exactText(sql)
    if (member.type === 'time' && this.dialect.textTime) return this.dialect.textTime(sql)
    return sql
  }

  /**
   * Where times are text (`Dialect.textTime`), the day bounds a comparison of a time column with a date implies,
   * on the column as stored, so an index on it still serves the query: `t >= '1998-01-01 06:00:00'` holds only
   * where the stored text is at least `1998-01-01`, and `t <= ...` only where it is below `1998-01-01~` (every form
   * of a time on that day sorts between the two). The comparison itself still decides; undefined where no bound
   * applies (an expression, `<>`, or no literal).
   */
  private rawDayBounds(subject: Resolved, range: { low?: Resolved; high?: Resolved }): string | undefined {
    if (!this.dialect.textTime || subject.kind !== 'dimension' || subject.member.type !== 'time') return undefined
    const raw = this.dimension(subject.member)
    if (!/^[\w."`]+$/.test(raw)) return undefined
    const day = (bound: Resolved | undefined) =>
      bound?.kind === 'literal' && typeof bound.value === 'string' && /^\d{4}-\d{2}-\d{2}/.test(bound.value)
        ? bound.value.slice(0, 10)
        : undefined
    const low = day(range.low)
    const high = day(range.high)
    const bounds = [
      ...(low === undefined ? [] : [`${raw} >= ${this.param(low)}`]),
      ...(high === undefined ? [] : [`${raw} < ${this.param(`${high}~`)}`]),
    ]
    return bounds.length > 0 ? bounds.join(' AND ') : undefined
  }

  /** A comparison, with the stored column's day bounds before it where times are text (see `rawDayBounds`). */
  private comparison(expression: Extract<Resolved, { kind: 'compare' }>): string {
    const test = `(${this.expression(expression.left)} ${expression.operator} ${this.expression(expression.right)})`
    const literalFirst = expression.left.kind === 'literal'
    const subject = literalFirst ? expression.right : expression.left
    const value = literalFirst ? expression.left : expression.right
    const operator = literalFirst ? FLIPPED[expression.operator] : expression.operator
    const bounds = this.rawDayBounds(subject, {
      low: operator === '>' || operator === '>=' || operator === '=' ? value : undefined,
      high: operator === '<' || operator === '<=' || operator === '=' ? value : undefined,
    })
    return bounds === undefined ? test : `(${bounds} AND ${test})`
  }

  private primaryKey(cube: Cube): string | undefined {
    const key = [...cube.dimensions.values()].find((dimension) => dimension.primaryKey)
    return key ? this.dimension(key) : undefined
  }

  private inflated(measure: Measure): never {
    const others = [...this.plan.cubes].filter((cube) => cube !== measure.cube).sort()
    return fail(
      `${measure.path} (${measure.type}) cannot be combined with members of ${others.join(', ')}: the query has to start from ${this.tree.root}, ` +
        `which repeats each ${measure.cube} row, so the ${measure.type} would be inflated. Query ${measure.path} without them, or use a measure of ${this.tree.root}.`,
    )
  }

  measure(measure: Measure): string {
    const cube = this.cube(measure.cube)
    if (measure.type === 'number')
      return renderTemplate(measure.sql, (reference) => {
        const name = reference.tail ?? reference.head
        return `(${this.measure(cube.measures.get(name) as Measure)})`
      })
    const multiplied = this.tree.multiplied.has(cube.name)
    const guarded = (value: string) => this.filtered(measure, value)
    const filter = measure.filters.map((sql) => `(${this.template(cube, sql)})`).join(' AND ')
    const key = this.primaryKey(cube)
    const value = measure.hasSql ? this.template(cube, measure.sql) : undefined
    switch (measure.type) {
      case 'count':
        if (value === undefined && cube.name === this.tree.root)
          return filter ? `COUNT(CASE WHEN ${filter} THEN 1 END)` : 'COUNT(*)'
        if (multiplied) {
          if (key === undefined) return this.inflated(measure)
          const present = [value === undefined ? undefined : `(${value}) IS NOT NULL`, filter || undefined]
            .filter(Boolean)
            .join(' AND ')
          return `COUNT(DISTINCT ${present ? `CASE WHEN ${present} THEN ${key} END` : key})`
        }
        return `COUNT(${guarded(value ?? key ?? '1')})`
      case 'count_distinct':
        return `COUNT(DISTINCT ${guarded(value as string)})`
      case 'sum':
        if (multiplied) return this.inflated(measure)
        return `SUM(${guarded(value as string)})`
      case 'avg':
        return `AVG(${this.averaged(measure)})`
      default:
        return `${measure.type.toUpperCase()}(${guarded(value as string)})`
    }
  }

  /** A measure's value where its filters hold, else null (which aggregates skip). */
  private filtered(measure: Measure, value: string): string {
    const cube = this.cube(measure.cube)
    const filter = measure.filters.map((sql) => `(${this.template(cube, sql)})`).join(' AND ')
    return filter ? `CASE WHEN ${filter} THEN ${value} END` : value
  }

  /** The values an `avg` measure averages; a query that repeats its cube's rows would inflate it. */
  private averaged(measure: Measure): string {
    const cube = this.cube(measure.cube)
    if (this.tree.multiplied.has(cube.name)) return this.inflated(measure)
    return this.filtered(measure, this.template(cube, measure.sql))
  }

  /**
   * The SUM and COUNT over the values an average column averages (an `avg` measure or `AVG(...)`), else undefined:
   * the answer is their exact quotient.
   */
  averageParts(expression: Resolved): { sum: string; count: string } | undefined {
    let argument: string
    if (expression.kind === 'measure' && expression.member.type === 'avg') argument = this.averaged(expression.member)
    else if (expression.kind === 'aggregate' && expression.fn === 'avg' && expression.member !== null)
      argument = this.aggregateArgument('avg', expression.distinct, expression.member)
    else return undefined
    return { sum: `SUM(${argument})`, count: `COUNT(${argument})` }
  }

  private aggregate(expression: Extract<Resolved, { kind: 'aggregate' }>): string {
    const { fn, member } = expression
    if (member === null) {
      const from = this.cube(this.plan.fromCube)
      if (from.name === this.tree.root) return 'COUNT(*)'
      const key =
        this.primaryKey(from) ??
        fail(`COUNT(*) over ${from.name} needs a primary key on ${from.name} here; use MEASURE(${from.name}.count)`)
      return this.tree.multiplied.has(from.name) ? `COUNT(DISTINCT ${key})` : `COUNT(${key})`
    }
    // The least and greatest of a flag, as 0 and 1: Postgres has no MIN or MAX of a boolean.
    if ((fn === 'min' || fn === 'max') && member.type === 'boolean' && !expression.distinct) {
      const value = this.value(member)
      // Compared as a flag again (`= 1`), so `HAVING MAX(orders.has_discount) = true` works on Postgres too.
      return `(${fn.toUpperCase()}(CASE WHEN ${value} THEN 1 WHEN NOT ${value} THEN 0 END) = 1)`
    }
    return `${fn.toUpperCase()}(${this.aggregateArgument(fn, expression.distinct, member)})`
  }

  /** What `fn(...)` of a dimension reads (`DISTINCT x` or `x`); sums, averages and counts of repeated rows fail. */
  private aggregateArgument(fn: AggregateFunction, distinct: boolean, member: Dimension): string {
    const value = this.value(member)
    if (distinct) return `DISTINCT ${value}`
    if ((fn === 'sum' || fn === 'avg' || fn === 'count') && this.tree.multiplied.has(member.cube))
      fail(
        `${fn.toUpperCase()}(${member.path}) would be inflated: this query repeats ${member.cube} rows (it starts from ${this.tree.root})`,
      )
    return value
  }

  /** Set while HAVING compiles for a dialect that names a grouped column there by its alias (`havingByAlias`). */
  private havingAliases = false

  /** The alias of the selected, not aggregated column computing `expression`, in a HAVING by alias; else undefined. */
  private groupedAlias(expression: Resolved): string | undefined {
    if (!this.havingAliases) return undefined
    const index = this.plan.columns.findIndex((column) => {
      const selected = column.expression
      if (column.aggregated || selected.kind !== expression.kind) return false
      if (selected.kind === 'dimension' && expression.kind === 'dimension')
        return selected.member.path === expression.member.path
      if (selected.kind === 'truncate' && expression.kind === 'truncate')
        return selected.member.path === expression.member.path && selected.granularity === expression.granularity
      return false
    })
    return index >= 0 ? this.column(index) : undefined
  }

  expression(expression: Resolved): string {
    switch (expression.kind) {
      case 'dimension':
        return this.groupedAlias(expression) ?? this.value(expression.member)
      case 'truncate':
        return (
          this.groupedAlias(expression) ??
          this.dialect.truncate(expression.granularity, this.dimension(expression.member))
        )
      case 'measure':
        return this.measure(expression.member)
      case 'aggregate':
        return this.aggregate(expression)
      case 'literal':
        return this.param(expression.value)
      case 'column':
        return this.havingAliases && !this.plan.columns[expression.index].aggregated
          ? this.column(expression.index)
          : this.expression(this.plan.columns[expression.index].expression)
      case 'compare':
        return this.comparison(expression)
      case 'logical':
        return `(${expression.args.map((arg) => this.expression(arg)).join(expression.operator === 'and' ? ' AND ' : ' OR ')})`
      case 'not':
        return `(NOT ${this.expression(expression.arg)})`
      case 'in':
        return `(${this.expression(expression.arg)} ${expression.negated ? 'NOT IN' : 'IN'} (${expression.list.map((item) => this.expression(item)).join(', ')}))`
      case 'between': {
        const test = `(${this.expression(expression.arg)} ${expression.negated ? 'NOT BETWEEN' : 'BETWEEN'} ${this.expression(expression.low)} AND ${this.expression(expression.high)})`
        const bounds = expression.negated ? undefined : this.rawDayBounds(expression.arg, expression)
        return bounds === undefined ? test : `(${bounds} AND ${test})`
      }
      case 'like': {
        const value = this.expression(expression.arg)
        const pattern = this.param(this.dialect.likePattern(expression.pattern, expression.caseInsensitive))
        const test = this.dialect.like(value, pattern, expression.caseInsensitive)
        return expression.negated ? `(NOT (${test}))` : `(${test})`
      }
      case 'isNull':
        return `(${this.expression(expression.arg)} IS ${expression.negated ? 'NOT ' : ''}NULL)`
    }
  }

  /**
   * A row-level security value as its member's type takes it. One that does not fit (a number from a security
   * context where the member holds text) is refused here in our words, never left to each database to answer its own
   * way. The member is not named: the caller may not see it.
   */
  private ruleValue(member: Dimension, value: string | number | boolean): string {
    const fitted = ruleValueFor(member.type, value, normalizeTime)
    if ('problem' in fitted)
      fail(
        `An access policy cannot compare a member with a value of the caller's access (userAttributes or securityContext): ${fitted.problem}`,
      )
    return this.param((fitted as { value: string | number | boolean }).value)
  }

  rowRule(rule: RowRule): string {
    switch (rule.kind) {
      case 'none':
        return '(1 = 0)'
      case 'any':
        return rule.of.length === 0 ? '(1 = 0)' : `(${rule.of.map((item) => this.rowRule(item)).join(' OR ')})`
      case 'all':
        return rule.of.length === 0 ? '(1 = 1)' : `(${rule.of.map((item) => this.rowRule(item)).join(' AND ')})`
      case 'filter': {
        const value = this.value(rule.member)
        const list = () => rule.values.map((item) => this.ruleValue(rule.member, item)).join(', ')
        switch (rule.operator) {
          case 'equals':
          case 'in':
            return `(${value} IN (${list()}))`
          case 'notEquals':
          case 'notIn':
            return `(${value} IS NOT NULL AND ${value} NOT IN (${list()}))`
          case 'contains':
            return `(${rule.values.map((item) => this.dialect.contains(value, this.param(String(item)))).join(' OR ')})`
          default: {
            const operator = { gt: '>', gte: '>=', lt: '<', lte: '<=' }[rule.operator]
            return `(${value} ${operator} ${this.ruleValue(rule.member, rule.values[0])})`
          }
        }
      }
    }
  }

  /** The row rules of every cube the query reads, and the cubes those rules need joined (whose own rules do not apply). */
  private rowRules(): string[] {
    if (this.view.unrestricted) return []
    const rules: RowRule[] = []
    for (const cube of [...this.tree.included]) {
      const access = this.view.cubes.get(cube)
      const rule = access ? access.rows : { kind: 'none' as const }
      if (rule !== null) rules.push(rule)
    }
    // Several cubes often carry the same rule (orders and line items both filter on customers.region).
    const seen = new Set<string>()
    const key = (rule: RowRule): string =>
      rule.kind === 'filter'
        ? `${rule.member.path} ${rule.operator} ${JSON.stringify(rule.values)}`
        : rule.kind === 'none'
          ? 'none'
          : `${rule.kind}(${rule.of.map(key).join(',')})`
    const unique = rules.filter((rule) => !seen.has(key(rule)) && seen.add(key(rule)))
    const visit = (rule: RowRule) => {
      if (rule.kind === 'filter' && !this.tree.include(rule.member.cube)) unique.push({ kind: 'none' })
      if (rule.kind === 'any' || rule.kind === 'all') rule.of.forEach(visit)
    }
    unique.forEach(visit)
    return unique.map((rule) => this.rowRule(rule))
  }

  private join(edge: Edge): string {
    return renderTemplate(edge.sql, (reference) => {
      const cube = reference.head === 'CUBE' ? edge.declaredOn : reference.head
      if (reference.tail === undefined) return this.alias(cube)
      return `(${this.dimension(this.cube(cube).dimensions.get(reference.tail) as Dimension)})`
    })
  }

  compile(): CompiledQuery {
    const { plan } = this
    const select = plan.columns.map((column, index) => `${this.expression(column.expression)} AS ${this.column(index)}`)
    const averages: CompiledQuery['averages'] = []
    plan.columns.forEach((column, index) => {
      const parts = this.averageParts(column.expression)
      if (!parts) return
      averages.push({ index, sum: select.length, count: select.length + 1 })
      select.push(
        `${parts.sum} AS ${this.column(select.length)}`,
        `${parts.count} AS ${this.column(select.length + 1)}`,
      )
    })
    const conditions = plan.where ? [this.expression(plan.where)] : []
    conditions.push(...this.rowRules())
    const source = (cube: Cube) => (cube.table !== undefined ? this.dialect.quoteIdentifier(cube.table) : cube.from)
    const from = [`${source(this.cube(this.tree.root))} AS ${this.alias(this.tree.root)}`]
    for (const cube of this.tree.included.slice(1))
      from.push(
        `LEFT JOIN ${source(this.cube(cube))} AS ${this.alias(cube)} ON ${this.join(this.tree.parents.get(cube) as Edge)}`,
      )
    // Every query is grouped by its dimensions (Cube semantics): a dimensions-only query lists distinct values.
    const groupBy = plan.grouping.map((item) => this.expression(item))
    this.havingAliases = this.dialect.havingByAlias
    const having = plan.having ? this.expression(plan.having) : undefined
    this.havingAliases = false
    // Nulls sort first ascending and last descending unless the query says otherwise; text sorts by code point.
    const sortKey = (index: number) => {
      const column = plan.columns[index]
      return column.type === 'string' ? this.dialect.binaryText(this.expression(column.expression)) : this.column(index)
    }
    const orderBy = plan.orderBy.map((item) => {
      const target =
        item.expression.kind === 'column' ? sortKey(item.expression.index) : this.expression(item.expression)
      return this.dialect.orderBy(target, item.descending, item.nulls ? item.nulls === 'first' : !item.descending)
    })
    // Rows the query's order leaves tied (or a query without one) come in one order on every source: by the
    // columns not ordered yet, labels first, then the numbers. A top 18 of a tie at 105 named other customers on
    // DuckDB and MariaDB than on SQLite and Postgres.
    const ordered = new Set(
      plan.orderBy.flatMap((item) => (item.expression.kind === 'column' ? [item.expression.index] : [])),
    )
    for (const aggregated of [false, true])
      plan.columns.forEach((column, index) => {
        if (column.aggregated === aggregated && !ordered.has(index))
          orderBy.push(this.dialect.orderBy(sortKey(index), false, true))
      })
    let sql = `SELECT ${select.join(', ')} FROM ${from.join(' ')}`
    if (conditions.length > 0) sql += ` WHERE ${conditions.join(' AND ')}`
    if (groupBy.length > 0) sql += ` GROUP BY ${groupBy.join(', ')}`
    if (having) sql += ` HAVING ${having}`
    if (orderBy.length > 0) sql += ` ORDER BY ${orderBy.join(', ')}`
    sql += this.dialect.limit(
      plan.limit === undefined ? undefined : this.param(plan.limit),
      plan.offset === undefined ? undefined : this.param(plan.offset),
    )
    const params: Parameter[] = []
    sql = sql.replace(MARKER, (_, index: string) => {
      params.push(this.params[Number(index)])
      return this.dialect.placeholder(params.length)
    })
    return { sql, params, columns: plan.columns.map((column) => ({ name: column.name, type: column.type })), averages }
  }
}

/** Compiles a resolved query to a dialect's SQL with the caller's row rules; throws `InvalidQueryError` for fan-outs. */
export function compileQuery(model: SemanticModel, view: AccessView, plan: QueryPlan, dialect: Dialect): CompiledQuery {
  return new Compiler(model, view, plan, dialect).compile()
}
