import { afterAll, describe, expect, it } from 'bun:test'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadDemoModel } from '../../../plugins/semantic/demo/demo-model'
import { ModelError } from '../../../plugins/semantic/errors'
import { readFolderModel } from '../../../plugins/semantic/semantic-model/folder-model'
import { loadModel } from '../../../plugins/semantic/semantic-model/model-loader'
import { buildMeta } from '../../../plugins/semantic/meta'
import { accessView } from '../../../plugins/semantic/semantic-model/access-policy'
import { prepareSemanticLayer } from '../../../plugins/semantic/startup'
import { createTestApp } from '../../helpers/app'
import { keys, testBootstrap } from '../../helpers/fixtures'

/** The problems `loadModel` reports for `text` (one file named `model.yml`), as `file:line: member: message`. */
function problems(text: string, branch?: string): string[] {
  try {
    loadModel('test', [{ file: 'model.yml', text }], branch === undefined ? [] : [{ file: 'branch.yml', text: branch }])
  } catch (error) {
    expect(error).toBeInstanceOf(ModelError)
    return (error as ModelError).problems.map(
      (problem) => `${problem.file}:${problem.line}: ${problem.member}: ${problem.message}`,
    )
  }
  throw new Error('the model loaded')
}

const ORDERS = `cubes:
  - name: orders
    sql_table: orders
    joins:
      - name: customers
        relationship: many_to_one
        sql: "{CUBE}.customer_id = {customers}.id"
    dimensions:
      - name: id
        type: number
        primary_key: true
      - name: status
        type: string
    measures:
      - name: count
        type: count
      - name: total
        type: sum
        sql: amount
  - name: customers
    sql_table: customers
    dimensions:
      - name: id
        type: number
        primary_key: true
      - name: region
        type: string
`

const temporary: string[] = []
afterAll(() => {
  for (const folder of temporary) rmSync(folder, { recursive: true, force: true })
})

function folder(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'semantic-model-'))
  temporary.push(root)
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(root, name, '..'), { recursive: true })
    writeFileSync(join(root, name), text)
  }
  return root
}

describe('loadModel', () => {
  it('loads a valid model with its joins in both directions', () => {
    const model = loadModel('test', [{ file: 'model.yml', text: ORDERS }])
    expect([...model.cubes.keys()]).toEqual(['orders', 'customers'])
    expect(model.edges.get('orders')?.map((edge) => edge.to)).toEqual(['customers'])
    expect(model.edges.get('customers')).toEqual([])
  })

  it('names file, line and member for a wrong measure type', () => {
    expect(problems(ORDERS.replace('type: sum', 'type: total'))).toEqual([
      'model.yml:18: orders.total: type: expected one of count, count_distinct, sum, avg, min, max, number',
    ])
  })

  it('names file, line and member for an unknown join target, with a suggestion', () => {
    expect(
      problems(ORDERS.replace('- name: customers\n        relationship', '- name: custmers\n        relationship')),
    ).toEqual(['model.yml:5: orders join custmers: unknown join target custmers (did you mean customers?)'])
  })

  it('names file, line and member for a bad member reference', () => {
    const text = ORDERS.replace('sql: amount', 'sql: "{CUBE.amount} * 2"')
    expect(problems(text)).toEqual(['model.yml:17: orders.total: unknown reference {CUBE.amount}'])
  })

  it('rejects duplicate member and cube names', () => {
    const duplicateMember = ORDERS.replace(
      '      - name: status\n        type: string',
      '      - name: status\n        type: string\n      - name: count\n        type: number',
    )
    expect(problems(duplicateMember)).toEqual([
      'model.yml:17: orders.count: duplicate member name (also defined at model.yml:14)',
    ])
    expect(() =>
      loadModel('test', [
        { file: 'a.yml', text: ORDERS },
        { file: 'b.yml', text: ORDERS },
      ]),
    ).toThrow('b.yml:2: orders: duplicate name: orders is already defined at a.yml:2')
  })

  it('reads YAML merge keys, so cubes share an anchor under an x- key', () => {
    const text = `x-money: &money
  type: sum
  format: currency
cubes:
  - name: orders
    sql_table: orders
    measures:
      - name: total
        sql: amount
        <<: *money
      - name: tax
        sql: tax
        <<: *money
`
    const model = loadModel('test', [{ file: 'model.yml', text }])
    expect([...(model.cubes.get('orders')?.measures.values() ?? [])].map((measure) => measure.type)).toEqual([
      'sum',
      'sum',
    ])
  })

  it('reports YAML syntax errors with their line', () => {
    expect(problems(`${ORDERS}  - name: [broken\n`)[0]).toMatch(/^model\.yml:\d+: : /)
  })

  it('checks access policies: groups, conditions, filter members and member lists', () => {
    const text = `${ORDERS}    access_policy:
      - group: "*"
        groups: [sales]
      - group: sales
        conditions:
          - if: "{ userAttributes.region ~ 1 }"
      - group: "*"
        row_level:
          filters:
            - member: customers.regoin
              operator: equals
              values: ["{ userAttributes.region }"]
        member_level:
          excludes: [phone]
`
    expect(problems(text)).toEqual([
      'model.yml:29: customers access_policy[0]: set exactly one of group and groups',
      expect.stringContaining(
        'model.yml:31: customers access_policy[1]: cannot read condition "{ userAttributes.region ~ 1 }"',
      ),
      'model.yml:34: customers access_policy[2]: member_level excludes: unknown member phone',
      'model.yml:34: customers access_policy[2]: row_level filter on unknown dimension customers.regoin (did you mean customers.region?)',
    ])
  })

  it('refuses a row filter on a cube reached through a one_to_many join', () => {
    const text = `${ORDERS}    access_policy:
      - group: "*"
        row_level:
          filters:
            - member: orders.status
              operator: equals
              values: [completed]
`
    expect(problems(text)).toEqual([
      'model.yml:29: customers access_policy[0]: row_level filter on orders.status: orders is not reachable from customers through many_to_one or one_to_one joins',
    ])
  })

  it('requires sql for aggregations other than count, and one of sql_table and sql', () => {
    expect(problems(ORDERS.replace('        sql: amount\n', '').replace('    sql_table: customers\n', ''))).toEqual([
      'model.yml:17: orders.total: a sum measure needs sql',
      'model.yml:19: customers: needs sql_table or sql',
    ])
  })

  it('replaces and extends cubes from branch files', () => {
    const branch = `cubes:
  - name: orders
    extends: orders
    measures:
      - name: average
        type: avg
        sql: amount
`
    const model = loadModel('test', [{ file: 'model.yml', text: ORDERS }], [{ file: 'branch.yml', text: branch }])
    expect([...(model.cubes.get('orders')?.measures.keys() ?? [])]).toEqual(['count', 'total', 'average'])
    expect(model.cubes.get('orders')?.joins.map((join) => join.target)).toEqual(['customers'])
    expect(problems(ORDERS, branch.replace('extends: orders', 'extends: order'))).toEqual([
      'branch.yml:2: orders: extends unknown cube order',
    ])
  })

  it('checks that views follow joins that do not multiply rows', () => {
    const text = `${ORDERS}views:
  - name: by_customer
    cubes:
      - join_path: customers
      - join_path: customers.orders
`
    expect(problems(text)).toEqual([
      'model.yml:29: by_customer join_path customers.orders: customers to orders is not a many_to_one or one_to_one join',
    ])
  })
})

const WORDS = `cubes:
  - name: invoice
    sql_table: invoice
    synonyms: [orders, sales]
    joins:
      - name: employee
        relationship: many_to_one
        sql: "{CUBE}.support_rep_id = {employee}.employee_id"
        role: support rep
        inferred: true
    dimensions:
      - name: invoice_id
        type: number
        primary_key: true
    measures:
      - name: revenue
        type: sum
        sql: total
        title: Revenue
        synonyms: [sales, turnover]
  - name: employee
    sql_table: employee
    label: full_name
    joins:
      - name: manager
        relationship: many_to_one
        sql: "{CUBE}.reports_to = {manager}.employee_id"
        role: manager
    dimensions:
      - name: employee_id
        type: number
        primary_key: true
      - name: full_name
        type: string
        sql: "{CUBE}.first_name || ' ' || {CUBE}.last_name"
        synonyms: [name]
  - name: manager
    sql_table: employee
    role_of: employee
    label: full_name
    dimensions:
      - name: employee_id
        type: number
        primary_key: true
      - name: full_name
        type: string
        sql: "{CUBE}.first_name || ' ' || {CUBE}.last_name"
`

describe('synonyms, labels, roles and inferred joins', () => {
  it('loads them and shows them in meta', () => {
    const model = loadModel('test', [{ file: 'model.yml', text: WORDS }])
    const meta = buildMeta(model, accessView(model, null))
    const [invoice, employee, manager] = meta.cubes
    expect(invoice.synonyms).toEqual(['orders', 'sales'])
    expect(invoice.measures[0].synonyms).toEqual(['sales', 'turnover'])
    expect(invoice.joins).toEqual([
      { name: 'employee', relationship: 'many_to_one', role: 'support rep', inferred: true },
    ])
    expect(employee.label).toBe('employee.full_name')
    expect(employee.dimensions[1].synonyms).toEqual(['name'])
    expect(employee.joins).toContainEqual({ name: 'manager', relationship: 'many_to_one', role: 'manager' })
    expect(employee.joins).toContainEqual({ name: 'invoice', relationship: 'one_to_many', inferred: true })
    expect(manager.roleOf).toBe('employee')
    expect(invoice.label).toBeUndefined()
    // A synonym is searched as a title is.
    expect(buildMeta(model, accessView(model, null), 'turnover').cubes.map((cube) => cube.name)).toEqual(['invoice'])
  })

  it('names an unknown label, role_of and a synonym that is not a list', () => {
    expect(problems(WORDS.replace('label: full_name', 'label: fullname'))).toEqual([
      'model.yml:21: employee label: unknown dimension fullname (did you mean full_name?)',
    ])
    expect(problems(WORDS.replace('role_of: employee', 'role_of: employe'))).toEqual([
      'model.yml:37: manager role_of: unknown cube employe (did you mean employee?)',
    ])
    expect(problems(WORDS.replace('synonyms: [orders, sales]', 'synonyms: orders'))[0]).toContain('synonyms')
  })
})

describe('the demo model', () => {
  it('differs on the dev branch by the cancellation measures', () => {
    const main = loadDemoModel('main')
    const dev = loadDemoModel('dev')
    const measures = (model: typeof main) => [...(model.cubes.get('orders')?.measures.keys() ?? [])]
    expect(measures(dev)).toEqual([...measures(main), 'cancelled_count', 'cancellation_rate'])
    expect(main.cubes.get('customers')?.policies?.length).toBe(4)
  })
})

describe('readFolderModel', () => {
  it('reads top-level files for the default branch and branch files on top', () => {
    const root = folder({ 'orders.yml': ORDERS, 'branches/dev/extra.yaml': 'cubes: []\n', 'notes.txt': 'ignored' })
    const main = readFolderModel(root, undefined)
    const dev = readFolderModel(root, 'dev')
    expect(main.base.map((source) => source.file)).toEqual([`${root}/orders.yml`])
    expect(main.branch).toEqual([])
    expect(dev.branch.map((source) => source.file)).toEqual([`${root}/branches/dev/extra.yaml`])
    expect(main.dataPath).toBeUndefined()
  })

  it('fails with ModelError for a missing or empty folder', () => {
    expect(() => readFolderModel(join(tmpdir(), 'no-such-semantic-folder'), undefined)).toThrow(
      'model folder not found',
    )
    expect(() => readFolderModel(folder({ 'readme.md': '' }), undefined)).toThrow('no *.yml or *.yaml model files')
  })
})

describe('prepareSemanticLayer', () => {
  it('stops the start with file, line and member when a deployment model is broken', async () => {
    const root = folder({ 'orders.yml': ORDERS.replace('type: string', 'type: text') })
    const bootstrap = testBootstrap()
    bootstrap.accounts[0].deployments?.push({ id: 7, name: 'Broken', model: root, agents: [] })
    const test = createTestApp({ bootstrap })
    try {
      await expect(prepareSemanticLayer(test.deps)).rejects.toThrow(
        `${root}/orders.yml:13: orders.status: type: expected one of string, number, time, boolean`,
      )
    } finally {
      void test.close()
    }
  })
})

describe('a deployment model first loaded after the start', () => {
  it('answers 409 MODEL_INVALID naming file, line and member from the model folder, not the server path', async () => {
    const root = folder({ 'orders.yml': ORDERS.replace('type: string', 'type: text') })
    const bootstrap = testBootstrap()
    bootstrap.accounts[0].deployments?.push({ id: 7, name: 'Broken', model: root, agents: [] })
    const test = createTestApp({ bootstrap })
    try {
      const response = await test.request('GET', '/api/v1/deployments/7/meta', {
        headers: { authorization: `Api-Key ${keys.admin}` },
      })
      const body = (await response.json()) as { error: string; code: string }
      expect(response.status).toBe(409)
      expect(body.code).toBe('MODEL_INVALID')
      expect(body.error).toContain('orders.yml:13: orders.status: type: expected one of string, number, time, boolean')
      expect(body.error).not.toContain(root)
      expect(body.error).not.toContain(tmpdir())
    } finally {
      void test.close()
    }
  })
})
