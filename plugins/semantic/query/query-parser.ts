import { Parser } from 'node-sql-parser/build/postgresql'
import { InvalidQueryError } from '../errors'
import { isReservedWord } from './sql-names'
import {
  GRANULARITIES,
  type AggregateFunction,
  type Expression,
  type Granularity,
  type Literal,
  type OrderItem,
  type Reference,
  type SelectStatement,
} from './query-ast'

type Node = Record<string, unknown>

const parser = new Parser()
const MAX_QUERY_LENGTH = 20_000
const COMPARE = new Set(['=', '<>', '!=', '<', '<=', '>', '>='])
const AGGREGATES = new Set(['COUNT', 'SUM', 'AVG', 'MIN', 'MAX'])
/** Select fields this parser reads; any other field with content is a feature it does not support. */
const SELECT_FIELDS = new Set([
  'type',
  'columns',
  'from',
  'where',
  'groupby',
  'having',
  'orderby',
  'limit',
  'distinct',
  'into',
])

const fail = (message: string): never => {
  throw new InvalidQueryError(message)
}

function isNode(value: unknown): value is Node {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

function isEmpty(value: unknown): boolean {
  if (value === null || value === undefined || value === false) return true
  if (Array.isArray(value)) return value.length === 0
  if (isNode(value)) return Object.values(value).every(isEmpty)
  return false
}

function identifier(value: unknown): string {
  if (typeof value === 'string') return value
  if (isNode(value) && isNode(value.expr) && typeof value.expr.value === 'string') return value.expr.value
  if (isNode(value) && typeof value.value === 'string') return value.value
  return fail('Unsupported identifier')
}

function functionName(node: Node): string {
  const name = node.name
  if (isNode(name) && Array.isArray(name.name)) return name.name.map(identifier).join('.').toUpperCase()
  return identifier(name).toUpperCase()
}

function functionArgs(node: Node): unknown[] {
  const args = node.args
  if (isNode(args) && Array.isArray(args.value)) return args.value
  return []
}

function describe(node: unknown): string {
  if (isNode(node) && 'ast' in node) return 'subqueries'
  if (isNode(node) && typeof node.type === 'string') return node.type.replace(/_/g, ' ')
  return 'this expression'
}

function reference(node: unknown, context: string): Reference {
  if (!isNode(node) || node.type !== 'column_ref')
    return fail(`${context} takes a member such as <cube>.<member>, not ${describe(node)}`)
  if (node.column === '*') return fail(`${context}: * is not a member; list the members you need (see serviceMeta)`)
  if (!isEmpty(node.collate)) fail('COLLATE is not supported')
  // `x AT TIME ZONE 'Asia/Tokyo'` was read as `x`, answering in UTC as if converted.
  if (!isEmpty(node.options))
    fail(
      JSON.stringify(node.options).toLowerCase().includes('at time zone')
        ? 'AT TIME ZONE is not supported: times are answered and compared in UTC'
        : `Unsupported SQL after ${identifier(node.column)}`,
    )
  const table = node.table === null || node.table === undefined ? undefined : identifier(node.table)
  if (!isEmpty(node.db) || !isEmpty(node.schema)) fail('Qualify members as cube.member only')
  return { type: 'ref', table, name: identifier(node.column) }
}

const DATE_LITERAL_TYPES = new Set(['date', 'timestamp', 'datetime'])

function literal(node: unknown): Literal | undefined {
  if (!isNode(node)) return undefined
  switch (node.type) {
    // The parser calls a number with many digits or an exponent (`1e308`, `99999999999999999999`) a bigint.
    case 'number':
    case 'bigint': {
      const value = Number(node.value)
      if (!Number.isFinite(value)) fail(`Number out of range: ${String(node.value)}`)
      return { type: 'literal', value, date: false }
    }
    case 'single_quote_string':
    case 'string':
      return { type: 'literal', value: String(node.value), date: false }
    case 'bool':
      return { type: 'literal', value: Boolean(node.value), date: false }
    case 'null':
      return { type: 'literal', value: null, date: false }
    case 'cast': {
      const target =
        Array.isArray(node.target) && isNode(node.target[0]) ? String(node.target[0].dataType).toUpperCase() : ''
      const inner = literal(node.expr)
      if (inner && typeof inner.value === 'string' && /^(DATE|TIMESTAMP|TIMESTAMPTZ|DATETIME)/.test(target))
        return { type: 'literal', value: inner.value, date: true }
      return fail(
        inner
          ? `Only casts of a string to DATE or TIMESTAMP are supported, got ${target || 'an unknown type'}`
          : `A member cannot be cast (to ${target || 'another type'}); for the day of a time, use DATE_TRUNC('day', member)`,
      )
    }
    default:
      if (typeof node.type === 'string' && DATE_LITERAL_TYPES.has(node.type))
        return { type: 'literal', value: String(node.value), date: true }
      return undefined
  }
}

function requireLiteral(node: unknown, context: string): Literal {
  return literal(node) ?? fail(`${context} takes literal values, not ${describe(node)}`)
}

function aggregate(node: Node): Expression {
  const fn = String(node.name).toUpperCase()
  if (!AGGREGATES.has(fn))
    return fail(`Unsupported aggregate ${fn}: use MEASURE(cube.measure), COUNT, MIN, MAX, SUM or AVG`)
  if (!isEmpty(node.over) || !isEmpty(node.filter)) fail(`${fn} with OVER or FILTER is not supported`)
  const args = isNode(node.args) ? node.args : {}
  if (!isEmpty(args.orderby) || !isEmpty(args.separator)) fail(`${fn} with ORDER BY is not supported`)
  const distinct = typeof args.distinct === 'string' && args.distinct.toUpperCase() === 'DISTINCT'
  const expr = args.expr
  if (isNode(expr) && (expr.type === 'star' || (expr.type === 'number' && fn === 'COUNT' && !distinct)))
    return fn === 'COUNT' && !distinct
      ? { type: 'aggregate', fn: 'count', distinct: false, arg: '*' }
      : fail(`${fn}(*) is not supported`)
  return { type: 'aggregate', fn: fn.toLowerCase() as AggregateFunction, distinct, arg: reference(expr, fn) }
}

function call(node: Node): Expression {
  const name = functionName(node)
  const args = functionArgs(node)
  if (!isEmpty(node.over)) fail(`${name} with OVER is not supported`)
  if (name === 'MEASURE') {
    if (args.length !== 1) fail('MEASURE takes one measure, like MEASURE(<cube>.<measure>)')
    return { type: 'measure', ref: reference(args[0], 'MEASURE') }
  }
  if (name === 'DATE_TRUNC') {
    const granularity = args.length === 2 ? literal(args[0]) : undefined
    const value = typeof granularity?.value === 'string' ? granularity.value.toLowerCase() : ''
    if (!(GRANULARITIES as readonly string[]).includes(value))
      fail(
        `DATE_TRUNC takes a granularity (${GRANULARITIES.join(', ')}) and a time dimension, like DATE_TRUNC('month', <cube>.<time dimension>)`,
      )
    return { type: 'truncate', granularity: value as Granularity, arg: reference(args[1], 'DATE_TRUNC') }
  }
  if (name === 'DATE' && args.length === 1) {
    const inner = literal(args[0])
    if (inner && typeof inner.value === 'string') return { type: 'literal', value: inner.value, date: true }
  }
  return fail(`Unsupported function ${name}: use MEASURE(cube.measure), DATE_TRUNC, COUNT, MIN, MAX, SUM or AVG`)
}

function expression(node: unknown): Expression {
  if (!isNode(node)) return fail('Unsupported expression')
  const known = literal(node)
  if (known) return known
  switch (node.type) {
    case 'column_ref':
      return reference(node, 'The expression')
    case 'function':
      return call(node)
    case 'aggr_func':
      return aggregate(node)
    case 'unary_expr':
      if (String(node.operator).toUpperCase() === 'NOT') return { type: 'not', arg: expression(node.expr) }
      return fail(`Unsupported operator ${String(node.operator)}`)
    case 'binary_expr':
      return binary(node)
    default:
      return fail(
        `Unsupported SQL: ${describe(node)} (only members, MEASURE(), DATE_TRUNC(), aggregates and literals are allowed)`,
      )
  }
}

function binary(node: Node): Expression {
  const operator = String(node.operator).toUpperCase()
  if (operator === 'AND' || operator === 'OR')
    return {
      type: 'logical',
      operator: operator === 'AND' ? 'and' : 'or',
      args: [expression(node.left), expression(node.right)],
    }
  if (COMPARE.has(operator)) {
    const normalized = operator === '!=' ? '<>' : (operator as '=' | '<>' | '<' | '<=' | '>' | '>=')
    return { type: 'compare', operator: normalized, left: expression(node.left), right: expression(node.right) }
  }
  if (operator === 'IN' || operator === 'NOT IN') {
    const list =
      isNode(node.right) && Array.isArray(node.right.value) ? node.right.value : fail('IN takes a list of values')
    return {
      type: 'in',
      arg: expression(node.left),
      list: list.map((item) => requireLiteral(item, 'IN')),
      negated: operator === 'NOT IN',
    }
  }
  if (operator === 'BETWEEN' || operator === 'NOT BETWEEN') {
    const bounds = isNode(node.right) && Array.isArray(node.right.value) ? node.right.value : []
    if (bounds.length !== 2) fail('BETWEEN takes two values')
    return {
      type: 'between',
      arg: expression(node.left),
      low: requireLiteral(bounds[0], 'BETWEEN'),
      high: requireLiteral(bounds[1], 'BETWEEN'),
      negated: operator === 'NOT BETWEEN',
    }
  }
  if (['LIKE', 'NOT LIKE', 'ILIKE', 'NOT ILIKE'].includes(operator)) {
    // The parser cannot read ESCAPE '\\' and another character was ignored (its escapes matched as text).
    if (isNode(node.right) && !isEmpty(node.right.escape))
      fail(`${operator} ... ESCAPE is not supported: the backslash escapes % and _ ('50\\%')`)
    const pattern = requireLiteral(node.right, operator)
    if (typeof pattern.value !== 'string') fail(`${operator} takes a string pattern`)
    return {
      type: 'like',
      arg: expression(node.left),
      pattern: String(pattern.value),
      caseInsensitive: operator.includes('ILIKE'),
      negated: operator.startsWith('NOT'),
    }
  }
  if (operator === 'IS' || operator === 'IS NOT') {
    const right = requireLiteral(node.right, operator)
    const negated = operator === 'IS NOT'
    if (right.value === null) return { type: 'isNull', arg: expression(node.left), negated }
    if (typeof right.value === 'boolean')
      return { type: 'compare', operator: negated ? '<>' : '=', left: expression(node.left), right }
    return fail(`${operator} takes NULL, TRUE or FALSE`)
  }
  return fail(
    ['+', '-', '*', '/', '%', '||'].includes(operator)
      ? `Arithmetic (${operator}) is not supported in a query: select each measure and compute the result from the rows`
      : `Unsupported operator ${operator}`,
  )
}

function nonNegativeInteger(node: unknown, clause: string): number {
  const value = requireLiteral(node, clause).value
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0)
    fail(`${clause} takes a non-negative integer`)
  return value as number
}

function limits(node: unknown): { limit: number | undefined; offset: number | undefined } {
  if (!isNode(node) || !Array.isArray(node.value) || node.value.length === 0)
    return { limit: undefined, offset: undefined }
  const values = node.value
  const all = (item: unknown) => isNode(item) && item.type === 'origin' && String(item.value).toLowerCase() === 'all'
  if (node.seperator === 'offset' && values.length === 1)
    return { limit: undefined, offset: nonNegativeInteger(values[0], 'OFFSET') }
  if (node.seperator !== 'offset' && node.seperator !== '' && values.length > 1) fail('Write LIMIT n OFFSET m')
  return {
    limit: all(values[0]) ? undefined : nonNegativeInteger(values[0], 'LIMIT'),
    offset: values.length > 1 ? nonNegativeInteger(values[1], 'OFFSET') : undefined,
  }
}

function select(node: Node): SelectStatement {
  for (const [key, value] of Object.entries(node))
    if (!SELECT_FIELDS.has(key) && !isEmpty(value))
      fail(
        key === 'with'
          ? 'WITH is not supported'
          : key === '_next' || key === 'set_op'
            ? 'UNION, INTERSECT and EXCEPT are not supported'
            : `Unsupported SQL: ${key.toUpperCase()}`,
      )
  if (isNode(node.into) && !isEmpty(node.into)) fail('SELECT INTO is not supported')
  if (isNode(node.distinct) && String(node.distinct.type).toUpperCase() === 'DISTINCT ON')
    fail(
      'DISTINCT ON is not supported: every query lists distinct rows of its members; use GROUP BY, ORDER BY and LIMIT',
    )
  const from = Array.isArray(node.from) ? node.from : []
  if (from.length === 0) fail('FROM must name a cube, like FROM <cube>')
  if (from.length > 1)
    fail(
      'Query one cube in FROM: members of other cubes are joined automatically, e.g. SELECT <other cube>.<dimension>, MEASURE(<cube>.<measure>) FROM <cube>',
    )
  const source = from[0]
  if (!isNode(source) || typeof source.table !== 'string' || 'expr' in source)
    fail('FROM must name a cube: subqueries and table functions are not supported')
  const table = source as Node
  if (!isEmpty(table.db) || !isEmpty(table.schema)) fail('FROM must name a cube without a schema, like FROM <cube>')
  if (!isEmpty(table.tablesample)) fail('TABLESAMPLE is not supported: a query reads every row it may see')
  if (!isEmpty(table.join) || !isEmpty(table.on) || !isEmpty(table.using))
    fail('JOIN is not supported: members of other cubes are joined automatically')
  const columns = Array.isArray(node.columns) ? node.columns : []
  if (columns.length === 0) fail('SELECT needs at least one member')
  const orderBy = (Array.isArray(node.orderby) ? node.orderby : []).map((item): OrderItem => {
    const entry = isNode(item) ? item : {}
    const nulls = typeof entry.nulls === 'string' ? entry.nulls.toUpperCase() : ''
    return {
      expression: position(entry.expr),
      descending: String(entry.type).toUpperCase() === 'DESC',
      nulls: nulls.includes('FIRST') ? 'first' : nulls.includes('LAST') ? 'last' : undefined,
    }
  })
  const groupBy =
    isNode(node.groupby) && Array.isArray(node.groupby.columns)
      ? node.groupby.columns
      : Array.isArray(node.groupby)
        ? node.groupby
        : []
  return {
    from: { name: table.table as string, alias: typeof table.as === 'string' ? table.as : undefined },
    columns: columns.map((column) => {
      const entry = isNode(column) ? column : {}
      return {
        expression: expression(entry.expr),
        alias: entry.as === null || entry.as === undefined ? undefined : identifier(entry.as),
      }
    }),
    where: node.where ? expression(node.where) : undefined,
    groupBy: groupBy.map(position),
    having: node.having ? expression(node.having) : undefined,
    orderBy,
    ...limits(node.limit),
  }
}

/** In GROUP BY and ORDER BY a bare integer is a position in the select list. */
function position(node: unknown): Expression {
  if (isNode(node) && node.type === 'number') {
    const index = Number(node.value)
    if (!Number.isSafeInteger(index) || index < 1) fail('Positions in GROUP BY and ORDER BY start at 1')
    return { type: 'position', index }
  }
  return expression(node)
}

/** The first word of the statement after comments, only to explain a parse failure better. */
function leadingKeyword(sql: string): string | undefined {
  let rest = sql
  for (;;) {
    rest = rest.trimStart()
    if (rest.startsWith('--')) rest = rest.includes('\n') ? rest.slice(rest.indexOf('\n') + 1) : ''
    else if (rest.startsWith('/*')) rest = rest.includes('*/') ? rest.slice(rest.indexOf('*/') + 2) : ''
    else break
  }
  return /^[A-Za-z]+/.exec(rest)?.[0].toUpperCase()
}

const isLogical = (value: unknown): value is Node =>
  isNode(value) &&
  value.type === 'binary_expr' &&
  typeof value.operator === 'string' &&
  ['AND', 'OR'].includes(value.operator.toUpperCase())

/**
 * The operand of `NOT (...)`, which the parser reads as a call of a function named NOT (refused as an unknown
 * function); undefined for anything else.
 */
function notCallArgument(node: Node): unknown {
  if (node.type !== 'function') return undefined
  const name = (node.name as { name?: Array<{ value?: unknown }> } | undefined)?.name
  const args = (node.args as { value?: unknown[] } | undefined)?.value
  if (name?.length !== 1 || String(name[0].value).toUpperCase() !== 'NOT' || args?.length !== 1) return undefined
  return isNode(args[0]) ? { ...args[0], parentheses: true } : args[0]
}

/**
 * Gives AND precedence over OR (and reads `NOT (...)` as a negation). The parser builds a chain of them left to right, whatever the operators:
 * `a OR b AND c` came out as `(a OR b) AND c`, a wrong answer without an error. The operands of each chain written
 * without brackets are read in order and joined again, ANDs first; a bracketed group stays one operand. Works in
 * place, through the whole statement.
 */
function bindAndBeforeOr(node: unknown): unknown {
  if (Array.isArray(node)) {
    node.forEach((item, index) => (node[index] = bindAndBeforeOr(item)))
    return node
  }
  if (!isNode(node)) return node
  const bracketedNot = notCallArgument(node)
  if (bracketedNot !== undefined)
    return { type: 'unary_expr', operator: 'NOT', expr: bindAndBeforeOr(bracketedNot), parentheses: node.parentheses }
  if (isLogical(node)) {
    const operands: unknown[] = []
    const operators: string[] = []
    const collect = (entry: unknown, root: boolean) => {
      if (isLogical(entry) && (root || !entry.parentheses)) {
        collect(entry.left, false)
        operators.push(String(entry.operator).toUpperCase())
        collect(entry.right, false)
      } else operands.push(bindAndBeforeOr(entry))
    }
    collect(node, true)
    const join = (operator: string, parts: unknown[]): unknown =>
      parts.reduce((left, right) => ({ type: 'binary_expr', operator, left, right }))
    const groups: unknown[][] = [[operands[0]]]
    operators.forEach((operator, index) => {
      if (operator === 'OR') groups.push([operands[index + 1]])
      else groups.at(-1)!.push(operands[index + 1])
    })
    const rebuilt = join(
      'OR',
      groups.map((group) => join('AND', group)),
    ) as Node
    if (node.parentheses) rebuilt.parentheses = true
    return rebuilt
  }
  const fields: Node = node
  for (const [key, value] of Object.entries(fields))
    if (value !== null && typeof value === 'object') fields[key] = bindAndBeforeOr(value)
  return fields
}

/** How deep brackets may nest: far beyond a real query, far below the parser's stack (2,000 levels overflowed it). */
const MAX_NESTING = 64

/** Whether `sql` nests brackets deeper than `limit`, outside quoted strings and identifiers. */
function bracketsDeeperThan(sql: string, limit: number): boolean {
  let depth = 0
  let quote = ''
  for (const char of sql) {
    if (quote) {
      if (char === quote) quote = ''
    } else if (char === "'" || char === '"') quote = char
    else if (char === '(') {
      if (++depth > limit) return true
    } else if (char === ')') depth--
  }
  return false
}

/**
 * Parses one Postgres-style SELECT over cubes. Everything else (other statements, several statements, WITH,
 * UNION, subqueries, joins, table functions, window functions, ...) is refused with `InvalidQueryError`.
 */
/**
 * A word SQL reserves written bare where a name goes (`FROM order`, `order.total`, `AS from`), outside quotes: a
 * model may name a cube or member so (a table `order`), and the parser's own complaint does not say why.
 */
function bareReservedName(sql: string): string | undefined {
  const unquoted = sql.replace(/'(?:[^']|'')*'|"(?:[^"]|"")*"/g, "''")
  // An alias first: in `AS from FROM t`, the word after FROM is the keyword itself.
  for (const pattern of [/\bAS\s+([A-Za-z_]\w*)/gi, /\b([A-Za-z_]\w*)\s*\.\s*[A-Za-z_"]/g, /\bFROM\s+([A-Za-z_]\w*)/gi])
    for (const match of unquoted.matchAll(pattern)) if (isReservedWord(match[1])) return match[1]
  return undefined
}

export function parseQuery(sql: string): SelectStatement {
  if (typeof sql !== 'string' || sql.trim() === '') fail('The query is empty')
  if (sql.length > MAX_QUERY_LENGTH) fail(`The query is longer than ${MAX_QUERY_LENGTH} characters`)
  if (bracketsDeeperThan(sql, MAX_NESTING)) fail(`The query nests brackets deeper than ${MAX_NESTING} levels`)
  let ast: unknown
  try {
    ast = parser.astify(sql, { database: 'postgresql' })
  } catch (error) {
    const keyword = leadingKeyword(sql)
    if (keyword && keyword !== 'SELECT' && keyword !== 'WITH') fail(`Only SELECT is allowed, got ${keyword}`)
    const message = (error as Error).message ?? ''
    const reserved = bareReservedName(sql)
    return fail(
      `Cannot parse the query (one SELECT over cubes is expected): ${reserved ? `${reserved} is a word SQL reserves: write it in double quotes where it names a cube, member or alias ("${reserved}".id, FROM "${reserved}"). ` : ''}${message.length > 300 ? `${message.slice(0, 300)}...` : message}`,
    )
  }
  const statements = Array.isArray(ast) ? ast : [ast]
  if (statements.length !== 1) fail('Send exactly one SELECT statement')
  const statement = statements[0]
  if (!isNode(statement) || statement.type !== 'select')
    fail(`Only SELECT is allowed, got ${isNode(statement) ? String(statement.type).toUpperCase() : 'nothing'}`)
  return select(bindAndBeforeOr(statement) as Node)
}
