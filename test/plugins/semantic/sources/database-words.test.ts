import { afterAll, describe, expect, it } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { redact } from '../../../../plugins/semantic/sources/data-source'
import { demoService, WHOLE_MODEL } from '../helpers'

describe('redact', () => {
  it('hides URLs and password values and leaves no fragment of what it cut', () => {
    expect(redact("Access denied for user 'shop'@'10.0.0.7' (using password: YES)")).toBe(
      "Access denied for user 'shop'@'10.0.0.7' (using password: YES)",
    )
    expect(redact('(password=hunter2) and pwd: s3cret, then')).toBe('(password=<hidden>) and pwd=<hidden>, then')
    expect(redact("connect to 'mysql://shop:hunter2@db.internal/shop' failed")).toBe("connect to '<url>' failed")
    for (const text of ['(using password=', 'hunter2', 's3cret'])
      expect(redact('x (password=hunter2) pwd: s3cret mysql://a:hunter2@h/d')).not.toContain(text)
  })
})

describe("a database's own error text", () => {
  const folder = mkdtempSync(join(tmpdir(), 'semantic-broken-'))
  writeFileSync(
    join(folder, 'broken.yml'),
    `cubes:
  - name: broken
    sql_table: no_such_table_here
    dimensions:
      - name: x
        type: number
    measures:
      - name: count
        type: count
  - name: odd
    sql: SELECT no_such_function_here(1) AS x
    dimensions:
      - name: x
        type: number
    measures:
      - name: count
        type: count
`,
  )
  const semantic = demoService()
  afterAll(() => {
    semantic.close()
    rmSync(folder, { recursive: true, force: true })
  })

  it('never reaches the caller: a query the database refuses gets our own message', async () => {
    const deployment = { id: 9, model: folder, branches: ['main'], defaultBranch: 'main' }
    const refused = await semantic
      .query({ deployment, access: WHOLE_MODEL }, 'SELECT MEASURE(broken.count) FROM broken')
      .catch((error: Error & { code?: string; status?: number }) => error)
    expect(refused).toMatchObject({ status: 400, code: 'INVALID_QUERY' })
    // A table the database lacks: the model and the database disagree, which no other form of the query mends.
    expect((refused as Error).message).toStartWith(
      'The model of deployment 9 names a table or column its database does not have',
    )
    expect((refused as Error).message).not.toContain('no_such_table_here')
    expect((refused as Error).message).not.toContain('no such table')
    const odd = await semantic
      .query({ deployment, access: WHOLE_MODEL }, 'SELECT MEASURE(odd.count) FROM odd')
      .catch((error: Error & { code?: string; status?: number }) => error)
    expect(odd).toMatchObject({ status: 400, code: 'INVALID_QUERY' })
    expect((odd as Error).message).toStartWith('The database could not run the query')
    expect((odd as Error).message).not.toContain('no_such_function_here')
  }, 30_000)
})
