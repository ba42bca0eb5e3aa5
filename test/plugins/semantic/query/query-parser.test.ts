import { describe, expect, it } from 'bun:test'
import { parseQuery } from '../../../../plugins/semantic/query/query-parser'

/** The message `sql` fails to parse with. */
function failure(sql: string): string {
  try {
    parseQuery(sql)
  } catch (error) {
    return (error as Error).message
  }
  throw new Error(`parsed: ${sql}`)
}

describe('query parser errors', () => {
  // The parser serves every deployment's model: an example naming the demo's cubes would send the analyst of a
  // library or a clinic looking for orders.
  it.each([
    ['no FROM', 'SELECT 1', /^FROM must name a cube, like FROM <cube>/],
    ['two cubes in FROM', 'SELECT a.x FROM a, b', /MEASURE\(<cube>\.<measure>\) FROM <cube>$/],
    ['a schema in FROM', 'SELECT a.x FROM main.a', /without a schema, like FROM <cube>$/],
    ['MEASURE of two', 'SELECT MEASURE(a.x, a.y) FROM a', /like MEASURE\(<cube>\.<measure>\)$/],
    [
      'DATE_TRUNC without a granularity',
      "SELECT DATE_TRUNC('eon', a.t) FROM a",
      /DATE_TRUNC\('month', <cube>\.<time dimension>\)$/,
    ],
    ['a number where a member goes', 'SELECT MEASURE(1) FROM a', /takes a member such as <cube>\.<member>, not/],
  ])('names no cube of any model for %s', (_name, sql, message) => {
    const text = failure(sql)
    expect(text).toMatch(message)
    expect(text).not.toMatch(/orders|customers|created_at/)
  })
})
