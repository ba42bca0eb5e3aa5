import { describe, expect, it } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openStorage } from '../../../db/sqlite/sqlite-storage'
import { describeStorageContract } from '../storage-contract'

describeStorageContract('SQLite', async () => {
  const storage = openStorage(':memory:')
  return { storage, dispose: () => storage.close() }
})

describe('Storage on a SQLite file', () => {
  it('has a write-ahead log for the server to checkpoint, whose automatic checkpoint it sets', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'storage-wal-'))
    const storage = openStorage(join(dir, 'service.db'))
    try {
      expect(storage.writeAheadLog?.path).toBe(join(dir, 'service.db'))
      storage.writeAheadLog?.checkpointAfter(20_000)
      expect(storage.sqlite.query('PRAGMA wal_autocheckpoint').get()).toEqual({ wal_autocheckpoint: 20_000 })
    } finally {
      await storage.close()
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
