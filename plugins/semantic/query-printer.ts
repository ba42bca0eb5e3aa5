import type { Expression, Literal, OrderItem, Reference, SelectStatement } from './query/query-ast'
import { isReservedWord } from './query/sql-names'

/**
 * Writes a parsed query back as SQL the parser reads to the same tree, so a query can be changed as a tree (a
 * dashboard filter added to WHERE, a time grain swapped) and still go through the one entry point, its checks and
 * its cache, as text.
 */
export function printQuery(statement: SelectStatement): string {
  const parts = [
    `SELECT ${statement.columns.map((column) => `${expression(column.expression)}${column.alias === undefined ? '' : ` AS ${identifier(column.alias)}`}`).join(', ')}`,
    `FROM ${identifier(statement.from.name)}${statement.from.alias === undefined ? '' : ` AS ${identifier(statement.from.alias)}`}`,
  ]
  if (statement.where) parts.push(`WHERE ${expression(statement.where)}`)
  if (statement.groupBy.length) parts.push(`GROUP BY ${statement.groupBy.map(expression).join(', ')}`)
  if (statement.having) parts.push(`HAVING ${expression(statement.having)}`)
  if (statement.orderBy.length) parts.push(`ORDER BY ${statement.orderBy.map(orderItem).join(', ')}`)
  if (statement.limit !== undefined) parts.push(`LIMIT ${statement.limit}`)
  if (statement.offset !== undefined) parts.push(`OFFSET ${statement.offset}`)
  return parts.join(' ')
}

function identifier(name: string): string {
  // A cube or member named by a reserved word (`order`, `group`) reads back only quoted.
  return /^[a-z_][a-z0-9_]*$/.test(name) && !isReservedWord(name) ? name : `"${name.replace(/"/g, '""')}"`
}

function reference(ref: Reference): string {
  return ref.table === undefined ? identifier(ref.name) : `${identifier(ref.table)}.${identifier(ref.name)}`
}

function literal(value: Literal): string {
  if (value.value === null) return 'NULL'
  if (typeof value.value === 'boolean') return value.value ? 'TRUE' : 'FALSE'
  if (typeof value.value === 'number') return String(value.value)
  // The parser keeps a quote doubled (`'it''s'` is `it''s`): such text goes out as it came in; anything else is escaped.
  const text = /^(?:[^']|'')*$/.test(value.value) ? `'${value.value}'` : `'${value.value.replace(/'/g, "''")}'`
  return value.date ? `CAST(${text} AS TIMESTAMP)` : text
}

function orderItem(item: OrderItem): string {
  return `${expression(item.expression)}${item.descending ? ' DESC' : ' ASC'}${item.nulls ? ` NULLS ${item.nulls.toUpperCase()}` : ''}`
}

function expression(node: Expression): string {
  switch (node.type) {
    case 'ref':
      return reference(node)
    case 'literal':
      return literal(node)
    case 'measure':
      return `MEASURE(${reference(node.ref)})`
    case 'aggregate':
      return `${node.fn.toUpperCase()}(${node.distinct ? 'DISTINCT ' : ''}${node.arg === '*' ? '*' : reference(node.arg)})`
    case 'truncate':
      return `DATE_TRUNC('${node.granularity}', ${reference(node.arg)})`
    case 'position':
      return String(node.index)
    case 'compare':
      return `(${expression(node.left)} ${node.operator} ${expression(node.right)})`
    case 'logical':
      return `(${node.args.map(expression).join(` ${node.operator.toUpperCase()} `)})`
    case 'not': {
      // `NOT (...)` reads as a call of a function NOT: a comparison goes bare (it binds tighter than NOT anyway).
      const inner = expression(node.arg)
      return node.arg.type === 'logical' || node.arg.type === 'not' ? `(NOT ${inner})` : `(NOT ${inner.slice(1, -1)})`
    }
    case 'in':
      return `(${expression(node.arg)} ${node.negated ? 'NOT IN' : 'IN'} (${node.list.map(literal).join(', ')}))`
    case 'between':
      return `(${expression(node.arg)} ${node.negated ? 'NOT BETWEEN' : 'BETWEEN'} ${literal(node.low)} AND ${literal(node.high)})`
    case 'like':
      return `(${expression(node.arg)} ${node.negated ? 'NOT ' : ''}${node.caseInsensitive ? 'ILIKE' : 'LIKE'} ${literal({ type: 'literal', value: node.pattern, date: false })})`
    case 'isNull':
      return `(${expression(node.arg)} IS ${node.negated ? 'NOT ' : ''}NULL)`
  }
}
