import { afterAll, describe, expect, it } from 'bun:test'
import { Database } from 'bun:sqlite'
import { createHash } from 'node:crypto'
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DEMO_DATA_VERSION } from '../../../plugins/semantic/demo/demo-data'
import { demoDataPath, ensureDemoDataFile, writeDemoData } from '../../../plugins/semantic/demo/demo-data-file'
import { Prng } from '../../../plugins/semantic/demo/prng'

const folder = mkdtempSync(join(tmpdir(), 'semantic-demo-'))
afterAll(() => rmSync(folder, { recursive: true, force: true }))

/** The checksum every machine must produce: a change here means the demo numbers changed (bump the version). */
const EXPECTED_CHECKSUM = '083ab4ea5b2d9211a4b6ad1e26b7be15edca77165d2078e15535a6959fd2a27e'
const EXPECTED_ROWS = { regions: 6, customers: 8000, products: 120, orders: 120000, line_items: 251660 }

/** The file's bytes: two generations write the same file, byte for byte. */
function fileChecksum(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex')
}

const path = join(folder, 'nested', 'demo-data.db')

describe('ensureDemoDataFile', () => {
  it('generates identical data on every run, with the pinned checksum and row counts', () => {
    const created = ensureDemoDataFile(path)
    const again = writeDemoData(join(folder, 'again.db'))
    expect(created.generated).toBe(true)
    expect(again).toEqual({ rows: EXPECTED_ROWS, checksum: EXPECTED_CHECKSUM })
    expect(fileChecksum(join(folder, 'again.db'))).toBe(fileChecksum(path))
  }, 30_000)

  it('reuses the complete file and leaves no temporary files', () => {
    const modified = statSync(path).mtimeMs
    const reused = ensureDemoDataFile(path)
    expect(reused).toMatchObject({ path, generated: false, bytes: statSync(path).size })
    expect(statSync(path).mtimeMs).toBe(modified)
    expect(readdirSync(join(folder, 'nested'))).toEqual(['demo-data.db'])
  })

  it('holds at least 100,000 orders over 2021 to 2025 and line items that add up to the order amounts', () => {
    const database = new Database(path, { readonly: true })
    try {
      const stored = database.query<{ value: string }, []>("SELECT value FROM demo_meta WHERE key = 'checksum'").get()
      expect(stored?.value).toBe(EXPECTED_CHECKSUM)
      const span = database
        .query<{ first: string; last: string; count: number }, []>(
          'SELECT min(created_at) AS first, max(created_at) AS last, count(*) AS count FROM orders',
        )
        .get()
      expect(span?.count).toBeGreaterThanOrEqual(100_000)
      expect(span?.first.startsWith('2021-01')).toBe(true)
      expect(span?.last.startsWith('2025-12')).toBe(true)
      const mismatches = database
        .query<{ n: number }, []>(
          `SELECT count(*) AS n FROM orders o JOIN (SELECT order_id, round(sum(amount), 2) AS subtotal FROM line_items GROUP BY order_id) li ON li.order_id = o.id
            WHERE abs(li.subtotal - o.discount - o.amount) > 0.001`,
        )
        .get()
      expect(mismatches?.n).toBe(0)
    } finally {
      database.close()
    }
  })
})

describe('demoDataPath', () => {
  it('prefers DEMO_DATA_PATH, then the database folder, then a versioned temp file', () => {
    expect(demoDataPath({ dbPath: './data/service.db', demoDataPath: '/srv/demo.db' })).toBe('/srv/demo.db')
    expect(demoDataPath({ dbPath: '/srv/data/service.db', demoDataPath: undefined })).toBe('/srv/data/demo-data.db')
    expect(demoDataPath({ dbPath: ':memory:', demoDataPath: undefined })).toBe(
      join(tmpdir(), `analytics-service-demo-data-v${DEMO_DATA_VERSION}.db`),
    )
  })
})

describe('Prng', () => {
  it('repeats the same sequence for the same seed', () => {
    const a = new Prng(7)
    const b = new Prng(7)
    const first = Array.from({ length: 5 }, () => a.next())
    expect(Array.from({ length: 5 }, () => b.next())).toEqual(first)
    expect(first.every((value) => value >= 0 && value < 1)).toBe(true)
    expect(new Prng(8).next()).not.toBe(first[0])
  })
})
