import { afterAll, describe, expect, it } from 'bun:test'
import fc from 'fast-check'
import type { SqlResult } from '../../../plugins/semantic/model'
import { demoDeployment, demoService, user, WHOLE_MODEL } from './helpers'

const semantic = demoService({ workers: 4 })
afterAll(() => semantic.close())

const REGIONS = ['Africa', 'Asia', 'Europe', 'North America', 'Oceania', 'South America', 'Atlantis']
const DIMENSIONS = [
  'customers.region',
  'customers.segment',
  'customers.is_vip',
  'orders.status',
  'orders.has_discount',
  'products.category',
  "DATE_TRUNC('year', orders.created_at)",
]
const MEASURES = [
  'MEASURE(orders.count)',
  'MEASURE(line_items.count)',
  'MEASURE(customers.count)',
  'MEASURE(orders.customer_count)',
  'MEASURE(line_items.total_quantity)',
  'COUNT(*)',
  'MAX(orders.amount)',
]
const FILTERS = [
  fc.constantFrom(
    "orders.status IN ('completed', 'shipped')",
    "orders.status <> 'cancelled'",
    'orders.has_discount = true',
  ),
  fc.integer({ min: 2021, max: 2025 }).map((year) => `orders.created_at >= '${year}-01-01'`),
  fc.constantFrom(...REGIONS).map((region) => `customers.region = '${region.replace(/'/g, "''")}'`),
  fc.constantFrom('Consumer', 'Corporate', 'Small Business').map((segment) => `customers.segment = '${segment}'`),
  fc.constantFrom(...['Books', 'Toys', 'Garden']).map((category) => `products.category <> '${category}'`),
]

/** A random query over the cubes whose rows belong to a customer, with a total order so LIMIT is deterministic. */
const query = fc
  .record({
    from: fc.constantFrom('orders', 'line_items', 'customers'),
    dimensions: fc.uniqueArray(fc.constantFrom(...DIMENSIONS), { maxLength: 3 }),
    measures: fc.uniqueArray(fc.constantFrom(...MEASURES), { minLength: 1, maxLength: 2 }),
    filters: fc.array(fc.oneof(...FILTERS), { maxLength: 3 }),
    descending: fc.boolean(),
    limit: fc.option(fc.integer({ min: 1, max: 40 }), { nil: undefined }),
  })
  .map((spec) => {
    const columns = [...spec.dimensions, ...spec.measures]
    const positions = columns.map((_, index) => `${index + 1} ${spec.descending ? 'DESC' : 'ASC'}`)
    return (extra: string | undefined) => {
      const filters = extra ? [...spec.filters, extra] : spec.filters
      const where = filters.length > 0 ? ` WHERE ${filters.map((filter) => `(${filter})`).join(' AND ')}` : ''
      const group =
        spec.dimensions.length > 0 ? ` GROUP BY ${spec.dimensions.map((_, index) => index + 1).join(', ')}` : ''
      const limit = spec.limit === undefined ? '' : ` LIMIT ${spec.limit}`
      return `SELECT ${columns.join(', ')} FROM ${spec.from}${where}${group} ORDER BY ${positions.join(', ')}${limit}`
    }
  })

/** What a user's `region` attribute may hold: missing, one region, or a list (which expands to IN). */
const regionAttribute = fc.oneof(
  fc.constant(undefined),
  fc.constantFrom(...REGIONS),
  fc.uniqueArray(fc.constantFrom(...REGIONS), { minLength: 1, maxLength: 3 }),
)

const run = (sql: string, access = WHOLE_MODEL) =>
  semantic.query({ deployment: demoDeployment, access }, sql).catch((error: Error) => ({ error: error.message }))

describe('access policies', () => {
  it('never return a row the policy hides: a user sees exactly what the whole model shows for their regions', async () => {
    await fc.assert(
      fc.asyncProperty(query, regionAttribute, fc.boolean(), async (build, region, sales) => {
        const access = user(region === undefined ? {} : { region }, sales ? ['sales'] : [])
        const regions = region === undefined ? undefined : Array.isArray(region) ? region : [region]
        const restriction = regions
          ? `customers.region IN (${regions.map((name) => `'${name}'`).join(', ')})`
          : undefined
        const [seen, allowed] = await Promise.all([run(build(undefined), access), run(build(restriction))])
        if ('error' in allowed) {
          // A query the engine refuses (an inflating sum, say) must be refused for the user too.
          expect(seen).toEqual({ error: expect.any(String) })
          return
        }
        expect(seen).toEqual(allowed)
        const result = seen as SqlResult
        const regionColumn = result.schema.findIndex((column) => column.name === 'customers.region')
        if (regions && regionColumn >= 0)
          for (const row of result.data) expect(regions).toContain(row[regionColumn] as string)
      }),
      { numRuns: 30, seed: 20_240_601 },
    )
  }, 120_000)

  it('show nothing of a region-bound cube to a user whose attribute names no real region', async () => {
    const access = user({ region: 'Atlantis' })
    for (const from of ['orders', 'line_items', 'customers']) {
      const result = (await run(`SELECT COUNT(*) FROM ${from}`, access)) as SqlResult
      expect(result.data).toEqual([['0']])
    }
    const products = (await run('SELECT MEASURE(products.count) FROM products', access)) as SqlResult
    expect(products.data).toEqual([['120']])
  })
})
