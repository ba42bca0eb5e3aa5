import { Database } from 'bun:sqlite'
import { afterAll, describe, expect, it } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { QueryPool } from '../../../../plugins/semantic/sources/query-pool'
import { createSqliteSource } from '../../../../plugins/semantic/sources/sqlite-source'

// A data file whose writer keeps it in WAL mode. The writer's last connection checkpoints and removes the WAL as
// it closes, holding the file's lock meanwhile: a read-only query that arrived then was answered "database is
// locked" at once instead of waiting the moment out.
const folder = mkdtempSync(join(tmpdir(), 'sqlite-wal-'))
const pool = new QueryPool({ size: 1, timeoutMs: 10_000 })
afterAll(() => {
  pool.close()
  rmSync(folder, { recursive: true, force: true })
})

function writeInWal(path: string): Database {
  const writer = new Database(path, { create: true })
  writer.run('PRAGMA journal_mode = WAL')
  writer.run('PRAGMA wal_autocheckpoint = 0')
  writer.run('CREATE TABLE orders (id INTEGER PRIMARY KEY, total REAL)')
  for (let id = 1; id <= 50; id++) writer.run('INSERT INTO orders VALUES (?, ?)', [id, id * 1.5])
  return writer
}

describe('a SQLite source left in WAL mode by its writer', () => {
  it('is read while the writer still holds the file, once it lets go, not refused as locked', async () => {
    const path = join(folder, 'held.db')
    const writer = writeInWal(path)
    // The lock a closing writer holds while it checkpoints, held here for a moment on purpose.
    writer.run('PRAGMA locking_mode = EXCLUSIVE')
    writer.run('BEGIN EXCLUSIVE')
    writer.run('COMMIT')
    const source = createSqliteSource({ path, pool, queryTimeoutMs: 10_000 })
    const answer = source.query('SELECT COUNT(*), SUM(total) FROM orders', [], 10)
    await Bun.sleep(300)
    writer.close()
    expect((await answer).rows).toEqual([[50, 1912.5]])
  })

  it('is read with the rows still only in the WAL of a writer that never checkpointed', async () => {
    const path = join(folder, 'open.db')
    const writer = writeInWal(path)
    const source = createSqliteSource({ path, pool, queryTimeoutMs: 10_000 })
    expect((await source.query('SELECT COUNT(*) FROM orders WHERE total > ?1', [30], 10)).rows).toEqual([[30]])
    writer.run('INSERT INTO orders VALUES (51, 100)')
    expect((await source.query('SELECT COUNT(*) FROM orders WHERE total > ?1', [30], 10)).rows).toEqual([[31]])
    writer.close()
  })
})
