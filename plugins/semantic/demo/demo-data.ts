import type { Database } from 'bun:sqlite'
import { createHash } from 'node:crypto'
import { Prng } from './prng'

/**
 * The built-in demo data: an e-commerce shop (regions, customers, products in categories, orders, line items)
 * from 2021 to 2025, generated from a fixed seed. Bump `DEMO_DATA_VERSION` whenever the output changes, so
 * cached files from an older generator are replaced instead of silently disagreeing with the tests.
 */
export const DEMO_DATA_VERSION = 1
export const DEMO_SEED = 20_210_101

const CUSTOMER_COUNT = 8_000
const ORDER_COUNT = 120_000
const FIRST_ORDER = Date.UTC(2021, 0, 1) / 1000
const LAST_ORDER = Date.UTC(2026, 0, 1) / 1000 - 1

const REGIONS = [
  { name: 'North America', weight: 30, cities: ['New York', 'Toronto', 'Chicago'] },
  { name: 'Europe', weight: 28, cities: ['Berlin', 'Paris', 'Madrid'] },
  { name: 'Asia', weight: 22, cities: ['Tokyo', 'Singapore', 'Mumbai'] },
  { name: 'South America', weight: 9, cities: ['Sao Paulo', 'Buenos Aires', 'Bogota'] },
  { name: 'Oceania', weight: 6, cities: ['Sydney', 'Auckland', 'Melbourne'] },
  { name: 'Africa', weight: 5, cities: ['Lagos', 'Nairobi', 'Cape Town'] },
] as const

const CATEGORIES = [
  { name: 'Electronics', min: 19, max: 899, nouns: ['Headphones', 'Monitor', 'Speaker'] },
  { name: 'Home & Kitchen', min: 9, max: 349, nouns: ['Blender', 'Kettle', 'Cookware Set'] },
  { name: 'Books', min: 6, max: 59, nouns: ['Novel', 'Cookbook', 'Atlas'] },
  { name: 'Clothing', min: 12, max: 199, nouns: ['Jacket', 'Sneakers', 'Sweater'] },
  { name: 'Sports', min: 8, max: 499, nouns: ['Yoga Mat', 'Bicycle Helmet', 'Tennis Racket'] },
  { name: 'Toys', min: 7, max: 149, nouns: ['Puzzle', 'Building Blocks', 'Board Game'] },
  { name: 'Beauty', min: 5, max: 119, nouns: ['Face Cream', 'Perfume', 'Hair Dryer'] },
  { name: 'Garden', min: 6, max: 399, nouns: ['Hose', 'Planter', 'Lawn Mower'] },
] as const
const ADJECTIVES = ['Classic', 'Deluxe', 'Eco', 'Pro', 'Compact'] as const

const FIRST_NAMES = [
  'Ada',
  'Ben',
  'Chloe',
  'Daniel',
  'Elena',
  'Farid',
  'Grace',
  'Hiro',
  'Ines',
  'Jonas',
  'Kemi',
  'Liam',
  'Maya',
  'Noah',
  'Olga',
  'Pedro',
  'Quinn',
  'Rosa',
  'Sami',
  'Tara',
  'Uma',
  'Victor',
  'Wen',
  'Ximena',
  'Yusuf',
  'Zoe',
] as const
const LAST_NAMES = [
  'Adams',
  'Baker',
  'Costa',
  'Dubois',
  'Eriksen',
  'Fischer',
  'Garcia',
  'Haddad',
  'Ito',
  'Jensen',
  'Kim',
  'Lopez',
  'Mensah',
  'Novak',
  'Okafor',
  'Patel',
  'Quispe',
  'Rossi',
  'Silva',
  'Tanaka',
  'Umar',
  'Virtanen',
  'Wang',
  'Young',
] as const
const SEGMENTS = ['Consumer', 'Corporate', 'Small Business'] as const
const STATUSES = ['completed', 'shipped', 'processing', 'cancelled', 'returned'] as const

export const DEMO_TABLES_SQL = `
CREATE TABLE regions (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
CREATE TABLE customers (
  id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL, region_id INTEGER NOT NULL,
  city TEXT NOT NULL, segment TEXT NOT NULL, is_vip INTEGER NOT NULL, created_at TEXT NOT NULL
);
CREATE TABLE products (id INTEGER PRIMARY KEY, name TEXT NOT NULL, category TEXT NOT NULL, price REAL NOT NULL);
CREATE TABLE orders (
  id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL, status TEXT NOT NULL, created_at TEXT NOT NULL,
  amount REAL NOT NULL, discount REAL NOT NULL
);
CREATE TABLE line_items (
  id INTEGER PRIMARY KEY, order_id INTEGER NOT NULL, product_id INTEGER NOT NULL, quantity INTEGER NOT NULL,
  unit_price REAL NOT NULL, amount REAL NOT NULL
);
CREATE TABLE demo_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
`

const INDEXES_SQL = `
CREATE INDEX customers_region ON customers (region_id);
CREATE INDEX orders_customer ON orders (customer_id);
CREATE INDEX orders_created_at ON orders (created_at);
CREATE INDEX line_items_order ON line_items (order_id);
CREATE INDEX line_items_product ON line_items (product_id);
`

export interface DemoDataSummary {
  rows: Record<'regions' | 'customers' | 'products' | 'orders' | 'line_items', number>
  /** SHA-256 over every generated row in generation order: equal checksums mean equal data. */
  checksum: string
}

/** `YYYY-MM-DD HH:MM:SS` in UTC: sorts as text and SQLite's date functions read it. */
function timestamp(seconds: number): string {
  return new Date(seconds * 1000).toISOString().slice(0, 19).replace('T', ' ')
}

/**
 * Multi-row inserts (a few hundred rows per statement: one native call instead of hundreds) that also feed every
 * row into the checksum, in batches for the same reason.
 */
class TableWriter {
  private readonly pending: Array<string | number> = []
  private readonly full: ReturnType<Database['prepare']>
  count = 0

  constructor(
    private readonly database: Database,
    private readonly table: string,
    private readonly columns: number,
    private readonly checksum: ChecksumWriter,
    private readonly batch = 250,
  ) {
    this.full = database.prepare(this.insertSql(batch))
  }

  private insertSql(rows: number): string {
    const row = `(${Array.from({ length: this.columns }, () => '?').join(', ')})`
    return `INSERT INTO ${this.table} VALUES ${Array.from({ length: rows }, () => row).join(', ')}`
  }

  /** Adds one row; `hashed` overrides what the checksum sees (cents instead of dollars, say). */
  add(values: Array<string | number>, hashed: Array<string | number> = values): void {
    this.count++
    this.checksum.add(this.table, hashed)
    for (const value of values) this.pending.push(value)
    if (this.pending.length === this.columns * this.batch) {
      this.full.run(...this.pending)
      this.pending.length = 0
    }
  }

  flush(): void {
    if (this.pending.length === 0) return
    this.database.prepare(this.insertSql(this.pending.length / this.columns)).run(...this.pending)
    this.pending.length = 0
  }
}

class ChecksumWriter {
  private readonly hash = createHash('sha256')
  private chunk = ''

  add(table: string, values: Array<string | number>): void {
    let line = table
    for (const value of values) line += `|${value}`
    this.chunk += `${line}\n`
    if (this.chunk.length > 1 << 20) this.drain()
  }

  private drain(): void {
    this.hash.update(this.chunk)
    this.chunk = ''
  }

  digest(): string {
    this.drain()
    return this.hash.digest('hex')
  }
}

/**
 * A number in [0, 1) that favours small values (u^1.5), for popular customers and products. Only correctly
 * rounded operations (`*`, `sqrt`), never `**` with a fraction: `pow` may differ in the last bit between platforms.
 */
function skewed(random: Prng): number {
  const u = random.next()
  return u * Math.sqrt(u)
}

/** A random permutation of 1..count, so skewed popularity does not line up with ids. */
function permutation(random: Prng, count: number): number[] {
  const ids = Array.from({ length: count }, (_, index) => index + 1)
  for (let index = count - 1; index > 0; index--) {
    const other = Math.floor(random.next() * (index + 1))
    ;[ids[index], ids[other]] = [ids[other], ids[index]]
  }
  return ids
}

/** Order times: growing over the years, busier in November and December. */
function orderTimes(random: Prng): number[] {
  const span = LAST_ORDER - FIRST_ORDER
  const times: number[] = []
  while (times.length < ORDER_COUNT) {
    const u = random.next()
    const position = random.next() < 0.5 ? u : Math.sqrt(u)
    const seconds = FIRST_ORDER + Math.floor(position * span)
    const month = new Date(seconds * 1000).getUTCMonth()
    if (month >= 10 || random.next() < 0.75) times.push(seconds)
  }
  return times.sort((a, b) => a - b)
}

/**
 * Creates the demo tables in `database` (empty) and fills them in one transaction. Money is computed in integer
 * cents and stored as dollars, so every amount is exact to the cent.
 */
export function generateDemoData(database: Database): DemoDataSummary {
  const random = new Prng(DEMO_SEED)
  const checksum = new ChecksumWriter()
  database.run(DEMO_TABLES_SQL)
  const regions = new TableWriter(database, 'regions', 2, checksum)
  const customers = new TableWriter(database, 'customers', 8, checksum)
  const products = new TableWriter(database, 'products', 4, checksum)
  const orders = new TableWriter(database, 'orders', 6, checksum)
  const lineItems = new TableWriter(database, 'line_items', 6, checksum)

  database.transaction(() => {
    REGIONS.forEach((region, index) => regions.add([index + 1, region.name]))

    const signupStart = Date.UTC(2019, 5, 1) / 1000
    const signupEnd = Date.UTC(2025, 5, 30) / 1000
    const regionIndexes = REGIONS.map((_, index) => index)
    const regionWeights = REGIONS.map((region) => region.weight)
    for (let id = 1; id <= CUSTOMER_COUNT; id++) {
      const first = random.pick(FIRST_NAMES)
      const last = random.pick(LAST_NAMES)
      const regionIndex = random.weighted(regionIndexes, regionWeights)
      const city = random.pick(REGIONS[regionIndex].cities)
      const segment = random.weighted(SEGMENTS, [60, 30, 10])
      const vip = random.next() < 0.05 ? 1 : 0
      const created = timestamp(random.int(signupStart, signupEnd))
      customers.add([
        id,
        `${first} ${last}`,
        `${first}.${last}${id}@example.com`.toLowerCase(),
        regionIndex + 1,
        city,
        segment,
        vip,
        created,
      ])
    }

    const prices: number[] = [0]
    let productId = 0
    for (const category of CATEGORIES) {
      for (let index = 0; index < ADJECTIVES.length * category.nouns.length; index++) {
        productId++
        const name = `${ADJECTIVES[index % ADJECTIVES.length]} ${category.nouns[Math.floor(index / ADJECTIVES.length)]}`
        const cents = random.int(category.min, category.max) * 100 + 99
        prices.push(cents)
        products.add([productId, name, category.name, cents / 100], [productId, name, category.name, cents])
      }
    }

    const customerRank = permutation(random, CUSTOMER_COUNT)
    const productRank = permutation(random, productId)
    const lastDays = LAST_ORDER - 10 * 86_400
    const items: number[] = []
    orderTimes(random).forEach((seconds, index) => {
      const orderId = index + 1
      const customerId = customerRank[Math.floor(CUSTOMER_COUNT * skewed(random))]
      const status =
        seconds > lastDays ? random.weighted(STATUSES, [10, 40, 50, 0, 0]) : random.weighted(STATUSES, [80, 3, 2, 9, 6])
      const itemCount = random.weighted([1, 2, 3, 4, 5], [40, 30, 15, 10, 5])
      let subtotal = 0
      items.length = 0
      for (let item = 0; item < itemCount; item++) {
        const product = productRank[Math.floor(productId * skewed(random))]
        const quantity = random.weighted([1, 2, 3], [70, 22, 8])
        subtotal += quantity * prices[product]
        items.push(product, quantity)
      }
      const discountRate = random.next() < 0.2 ? random.pick([5, 10, 15]) : 0
      const discount = Math.round((subtotal * discountRate) / 100)
      const created = timestamp(seconds)
      orders.add(
        [orderId, customerId, status, created, (subtotal - discount) / 100, discount / 100],
        [orderId, customerId, status, created, subtotal - discount, discount],
      )
      for (let item = 0; item < items.length; item += 2) {
        const [product, quantity] = [items[item], items[item + 1]]
        const unit = prices[product]
        lineItems.add(
          [lineItems.count + 1, orderId, product, quantity, unit / 100, (quantity * unit) / 100],
          [lineItems.count + 1, orderId, product, quantity, unit, quantity * unit],
        )
      }
    })
    for (const writer of [regions, customers, products, orders, lineItems]) writer.flush()
    database.run(INDEXES_SQL)
  })()

  const rows = {
    regions: regions.count,
    customers: customers.count,
    products: products.count,
    orders: orders.count,
    line_items: lineItems.count,
  }
  const digest = checksum.digest()
  const meta = database.prepare('INSERT INTO demo_meta VALUES (?, ?)')
  meta.run('version', String(DEMO_DATA_VERSION))
  meta.run('seed', String(DEMO_SEED))
  meta.run('checksum', digest)
  meta.run('rows', JSON.stringify(rows))
  return { rows, checksum: digest }
}
