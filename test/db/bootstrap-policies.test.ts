import { describe, expect, it } from 'bun:test'
import { applyBootstrap } from '../../db/bootstrap/apply'
import { openStorage } from '../../db/client'
import { testBootstrap } from '../helpers/fixtures'

const policyOf = (storage: ReturnType<typeof openStorage>, name: string) =>
  storage.sqlite
    .query<{ role: string; actions: string; updatedAt: number }, [string]>(
      `SELECT p.role AS role, p.actions AS actions, p.updated_at AS updatedAt
         FROM api_key_policies p JOIN api_keys k ON k.id = p.api_key_id JOIN accounts a ON a.id = k.account_id
        WHERE a.name = 'acme' AND k.name = ?`,
    )
    .get(name)
const keyId = (storage: ReturnType<typeof openStorage>, name: string) =>
  storage.sqlite.query<{ id: number }, [string]>('SELECT id FROM api_keys WHERE account_id = 1 AND name = ?').get(name)!
    .id

describe('bootstrap and key policies', () => {
  it('restores the default policy of the keys it names when applied again over a changed database', () => {
    const storage = openStorage(':memory:')
    applyBootstrap(storage, testBootstrap(), 'test', 1000)
    // What a takeover (or a mistake) leaves behind: the unscoped admin key reduced to a viewer.
    const insert = storage.sqlite.query(
      'INSERT INTO api_key_policies (api_key_id, role, actions, updated_at) VALUES (?, ?, ?, ?)',
    )
    insert.run(keyId(storage, 'admin'), 'viewer', JSON.stringify(['ContentRead']), 2000)
    insert.run(keyId(storage, 'member'), 'custom', JSON.stringify([]), 2000)
    applyBootstrap(storage, testBootstrap(), 'test', 3000)
    expect(policyOf(storage, 'admin')).toBeNull()
    expect(policyOf(storage, 'member')).toBeNull()
    storage.close()
  })

  it('applies the role a key names, and puts it back at the next start, leaving keys it does not name alone', () => {
    const storage = openStorage(':memory:')
    const file = testBootstrap()
    file.accounts[0].apiKeys![1].role = 'viewer'
    applyBootstrap(storage, file, 'test', 1000)
    expect(policyOf(storage, 'member')).toEqual({ role: 'viewer', actions: '["ContentRead"]', updatedAt: 1000 })
    // Same file again: nothing to change, so the row stays as it was.
    applyBootstrap(storage, file, 'test', 2000)
    expect(policyOf(storage, 'member')?.updatedAt).toBe(1000)

    storage.sqlite
      .query("UPDATE api_key_policies SET role = 'admin', actions = ? WHERE api_key_id = ?")
      .run('["SecretsManage"]', keyId(storage, 'member'))
    storage.sqlite
      .query(
        "INSERT INTO api_keys (account_id, name, key_hash, key_prefix, admin, created_at) VALUES (1, 'cli-key', 'h', 'ak_cli', 1, 1)",
      )
      .run()
    storage.sqlite
      .query('INSERT INTO api_key_policies (api_key_id, role, actions, updated_at) VALUES (?, ?, ?, ?)')
      .run(keyId(storage, 'cli-key'), 'viewer', '["ContentRead"]', 1)
    applyBootstrap(storage, file, 'test', 3000)
    expect(policyOf(storage, 'member')).toEqual({ role: 'viewer', actions: '["ContentRead"]', updatedAt: 3000 })
    expect(policyOf(storage, 'cli-key')?.role).toBe('viewer')
    storage.close()
  })
})
