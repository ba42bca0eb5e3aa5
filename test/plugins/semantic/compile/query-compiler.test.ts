import { describe, expect, it } from 'bun:test'
import { compileQuery } from '../../../../plugins/semantic/compile/query-compiler'
import { loadDemoModel } from '../../../../plugins/semantic/demo/demo-model'
import { parseQuery } from '../../../../plugins/semantic/query/query-parser'
import { planQuery } from '../../../../plugins/semantic/query/query-planner'
import { accessView } from '../../../../plugins/semantic/semantic-model/access-policy'
import type { Dialect } from '../../../../plugins/semantic/sources/dialects/dialect'
import { mysqlDialect } from '../../../../plugins/semantic/sources/dialects/mysql-dialect'
import { postgresDialect } from '../../../../plugins/semantic/sources/dialects/postgres-dialect'

/** The HAVING clause of a query grouped by region whose condition holds the region and a measure. */
function havingOf(dialect: Dialect): string {
  const model = loadDemoModel('main')
  const view = accessView(model, null)
  const query = parseQuery(
    "SELECT customers.region, MEASURE(orders.count) FROM orders GROUP BY 1 HAVING customers.region <> 'North' OR MEASURE(orders.count) > 1",
  )
  const { sql } = compileQuery(model, view, planQuery(model, view, query), dialect)
  return sql.slice(sql.indexOf(' HAVING '), sql.indexOf(' ORDER BY '))
}

describe('compileQuery', () => {
  it('names a grouped column in HAVING by its alias where the dialect asks for it, whatever the dialect is called', () => {
    const byAlias = havingOf({ ...postgresDialect, havingByAlias: true })
    expect(byAlias).toContain('"__c0" <> $1')
    expect(byAlias).not.toContain('.region')
    expect(havingOf(mysqlDialect)).toContain('`__c0` <> ?')
  })

  it('writes the grouped expression itself in HAVING where the dialect takes it', () => {
    expect(havingOf(postgresDialect)).toContain('"customers".region <> $1')
    expect(havingOf({ ...mysqlDialect, havingByAlias: false })).not.toContain('__c0')
  })
})
