import { Database } from 'bun:sqlite'
import { DEMO_MARKER_TABLE, type DemoTarget } from './demo-data-export'

type Kind = 'id' | 'integer' | 'text' | 'money' | 'time'
type Flavour = 'postgres' | 'mysql' | 'sqlite'

// Money as exact decimals on the servers (sums of cents stay exact); times as timestamps; text compared by bytes
// on MySQL, whose default collations ignore case (every source must answer `status = 'Completed'` the same way).
const TYPES: Record<Flavour, Record<Kind, string>> = {
  postgres: {
    id: 'integer PRIMARY KEY',
    integer: 'integer NOT NULL',
    text: 'text NOT NULL',
    money: 'numeric(12,2) NOT NULL',
    time: 'timestamp NOT NULL',
  },
  mysql: {
    id: 'INT PRIMARY KEY',
    integer: 'INT NOT NULL',
    text: 'VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL',
    money: 'DECIMAL(12,2) NOT NULL',
    time: 'DATETIME NOT NULL',
  },
  sqlite: {
    id: 'INTEGER PRIMARY KEY',
    integer: 'INTEGER NOT NULL',
    text: 'TEXT NOT NULL',
    money: 'REAL NOT NULL',
    time: 'TIMESTAMP NOT NULL',
  },
}

const quote = (flavour: Flavour, name: string) => (flavour === 'mysql' ? `\`${name}\`` : `"${name}"`)

function createTableSql(flavour: Flavour, table: Parameters<DemoTarget['recreate']>[0][number]): string {
  const columns = table.columns.map(([name, kind]) => `${quote(flavour, name)} ${TYPES[flavour][kind]}`)
  const keys = Object.entries(table.references ?? {}).map(
    ([column, target]) =>
      `FOREIGN KEY (${quote(flavour, column)}) REFERENCES ${quote(flavour, target)} (${quote(flavour, 'id')})`,
  )
  const options = flavour === 'mysql' ? ' ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin' : ''
  return `CREATE TABLE ${quote(flavour, table.name)} (${[...columns, ...keys].join(', ')})${options}`
}

const INDEXES = [
  ['customers', 'region_id'],
  ['orders', 'customer_id'],
  ['orders', 'created_at'],
  ['line_items', 'order_id'],
  ['line_items', 'product_id'],
] as const

const DROP_ORDER = ['line_items', 'orders', 'products', 'customers', 'regions', DEMO_MARKER_TABLE]

/** Postgres or MySQL/MariaDB, through Bun's client, on one connection (a transaction on Postgres). */
export async function serverDemoTarget(url: string): Promise<DemoTarget> {
  const flavour: Flavour = /^mysql:/i.test(url) ? 'mysql' : 'postgres'
  const client = new Bun.SQL(url, { max: 1, connectionTimeout: 10 } as Bun.SQL.Options)
  const session = await client.reserve()
  const placeholder = (index: number) => (flavour === 'mysql' ? '?' : `$${index}`)
  const schemaTest = flavour === 'mysql' ? 'table_schema = DATABASE()' : 'table_schema = current_schema()'
  const hasTable = async (name: string) => {
    const rows = (await session
      .unsafe(`SELECT COUNT(*) FROM information_schema.tables WHERE ${schemaTest} AND table_name = ${placeholder(1)}`, [
        name,
      ])
      .values()) as unknown[][]
    return Number(rows[0][0]) > 0
  }
  return {
    hasTable,
    async ownsDemoTables() {
      if (!(await hasTable(DEMO_MARKER_TABLE))) return false
      const rows = (await session
        .unsafe(`SELECT value FROM ${quote(flavour, DEMO_MARKER_TABLE)} WHERE ${quote(flavour, 'key')} = 'written_by'`)
        .values()) as unknown[][]
      return rows[0]?.[0] === 'demo-data'
    },
    async recreate(tables) {
      if (flavour === 'postgres') await session.unsafe('BEGIN')
      for (const name of DROP_ORDER) await session.unsafe(`DROP TABLE IF EXISTS ${quote(flavour, name)}`)
      for (const table of tables) await session.unsafe(createTableSql(flavour, table))
      await session.unsafe(
        `CREATE TABLE ${quote(flavour, DEMO_MARKER_TABLE)} (${quote(flavour, 'key')} VARCHAR(100) PRIMARY KEY, value VARCHAR(200) NOT NULL)`,
      )
      if (flavour === 'mysql') await session.unsafe('START TRANSACTION')
    },
    async insert(table, rows) {
      const width = table.columns.length
      let index = 0
      const values = rows
        .map(() => `(${Array.from({ length: width }, () => placeholder(++index)).join(', ')})`)
        .join(', ')
      await session.unsafe(`INSERT INTO ${quote(flavour, table.name)} VALUES ${values}`, rows.flat())
    },
    async finish(version) {
      for (const [table, column] of INDEXES)
        await session.unsafe(`CREATE INDEX ${table}_${column} ON ${quote(flavour, table)} (${quote(flavour, column)})`)
      await session.unsafe(
        `INSERT INTO ${quote(flavour, DEMO_MARKER_TABLE)} VALUES ('written_by', 'demo-data'), ('version', '${version}')`,
      )
      await session.unsafe('COMMIT')
      if (flavour === 'postgres') await session.unsafe('ANALYZE')
    },
    async close() {
      session.release()
      await client.close({ timeout: 1 })
    },
  }
}

/** A SQLite file (created when missing), in one transaction. */
export function sqliteDemoTarget(path: string): DemoTarget {
  const database = new Database(path, { create: true })
  database.run('PRAGMA journal_mode = WAL')
  const hasTable = async (name: string) =>
    database.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== null
  return {
    hasTable,
    async ownsDemoTables() {
      if (!(await hasTable(DEMO_MARKER_TABLE))) return false
      return (
        (
          database.query(`SELECT value FROM ${DEMO_MARKER_TABLE} WHERE key = 'written_by'`).get() as {
            value: string
          } | null
        )?.value === 'demo-data'
      )
    },
    async recreate(tables) {
      database.run('BEGIN')
      for (const name of DROP_ORDER) database.run(`DROP TABLE IF EXISTS "${name}"`)
      for (const table of tables) database.run(createTableSql('sqlite', table))
      database.run(`CREATE TABLE ${DEMO_MARKER_TABLE} (key TEXT PRIMARY KEY, value TEXT NOT NULL)`)
    },
    async insert(table, rows) {
      const row = `(${table.columns.map(() => '?').join(', ')})`
      database
        .query(`INSERT INTO "${table.name}" VALUES ${rows.map(() => row).join(', ')}`)
        .run(...(rows.flat() as Array<string | number>))
    },
    async finish(version) {
      for (const [table, column] of INDEXES) database.run(`CREATE INDEX ${table}_${column} ON "${table}" ("${column}")`)
      database.run(`INSERT INTO ${DEMO_MARKER_TABLE} VALUES ('written_by', 'demo-data'), ('version', '${version}')`)
      database.run('COMMIT')
    },
    async close() {
      database.close()
    },
  }
}
