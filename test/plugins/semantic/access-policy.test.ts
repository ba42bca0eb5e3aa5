import { describe, expect, it } from 'bun:test'
import { buildMeta } from '../../../plugins/semantic/meta'
import { accessView } from '../../../plugins/semantic/semantic-model/access-policy'
import { loadModel } from '../../../plugins/semantic/semantic-model/model-loader'
import {
  evaluateCondition,
  parseCondition,
  parseValueTemplate,
  resolveValues,
} from '../../../plugins/semantic/semantic-model/policy-expression'
import type { UserAccess } from '../../../plugins/auth/user-provisioner'
import { user } from './helpers'

const access: UserAccess = {
  ...user({ region: 'Europe', tiers: ['gold', 'silver'], level: 3 }, ['sales']),
  securityContext: { team: { id: 'emea' } },
}

describe('parseCondition and evaluateCondition', () => {
  const holds = (text: string, who = access) => evaluateCondition(parseCondition(text), who)

  it('reads null checks, literals, truthiness, groups and nested security context', () => {
    expect(holds('{ userAttributes.region != null }')).toBe(true)
    expect(holds('{ userAttributes.country == null }')).toBe(true)
    expect(holds("{ userAttributes.region == 'Europe' }")).toBe(true)
    expect(holds('{ userAttributes.region != "Europe" }')).toBe(false)
    expect(holds("{ userAttributes.tiers == 'gold' }")).toBe(true)
    expect(holds('{ userAttributes.level == 3 }')).toBe(true)
    expect(holds("{ groups == 'sales' }")).toBe(true)
    expect(holds("{ securityContext.team.id == 'emea' }")).toBe(true)
    expect(holds('{ securityContext.team.name }')).toBe(false)
    expect(holds('{ userAttributes.region }', user({}))).toBe(false)
  })

  it('refuses anything outside the small language', () => {
    for (const text of [
      '{ process.env.HOME }',
      '{ userAttributes.region > 3 }',
      'userAttributes.region != null',
      "{ constructor.constructor('x')() }",
    ])
      expect(() => parseCondition(text)).toThrow()
  })

  it('never follows inherited properties', () => {
    expect(holds('{ securityContext.toString }')).toBe(false)
    expect(holds('{ userAttributes.constructor }')).toBe(false)
  })
})

describe('resolveValues', () => {
  it('expands arrays and fails closed for missing, null, empty or non-scalar values', () => {
    expect(resolveValues(parseValueTemplate('{ userAttributes.region }'), access)).toEqual(['Europe'])
    expect(resolveValues(parseValueTemplate('{ userAttributes.tiers }'), access)).toEqual(['gold', 'silver'])
    expect(resolveValues(parseValueTemplate('plain'), access)).toEqual(['plain'])
    expect(resolveValues(parseValueTemplate('{ userAttributes.country }'), access)).toBeUndefined()
    expect(resolveValues(parseValueTemplate('{ securityContext.team }'), access)).toBeUndefined()
    expect(resolveValues(parseValueTemplate('{ userAttributes.tiers }'), user({ tiers: [] }))).toBeUndefined()
    expect(() => parseValueTemplate('prefix-{ userAttributes.region }')).toThrow('a template must be the whole value')
  })
})

const MODEL = `cubes:
  - name: deals
    sql_table: deals
    dimensions:
      - name: region
        type: string
      - name: owner
        type: string
      - name: margin
        type: number
    measures:
      - name: count
        type: count
    access_policy:
      - group: managers
        member_level:
          includes: "*"
      - group: sales
        row_level:
          filters:
            - member: region
              operator: equals
              values: ["{ userAttributes.region }"]
        member_level:
          excludes: [margin]
      - group: auditors
        conditions:
          - if: "{ securityContext.audit == 'yes' }"
        row_level:
          allow_all: false
  - name: notes
    sql_table: notes
    dimensions:
      - name: text
        type: string
`

describe('accessView', () => {
  const model = loadModel('test', [{ file: 'model.yml', text: MODEL }])
  const deals = (who: Parameters<typeof accessView>[1]) => accessView(model, who).cubes.get('deals')

  it('bypasses policies for a caller without a user', () => {
    expect(deals(null)).toEqual({ members: new Set(['region', 'owner', 'margin', 'count']), rows: null })
  })

  it('hides a cube with policies from a caller no policy matches, and leaves cubes without policies open', () => {
    const view = accessView(model, user({}, ['marketing']))
    expect(view.cubes.get('deals')).toEqual({ members: new Set(), rows: { kind: 'none' } })
    expect(view.cubes.get('notes')?.rows).toBeNull()
  })

  it('filters rows by the attribute and hides excluded members', () => {
    const seller = deals(user({ region: 'Europe' }, ['sales']))
    expect([...(seller?.members ?? [])]).toEqual(['region', 'owner', 'count'])
    expect(seller?.rows).toMatchObject({
      kind: 'any',
      of: [{ kind: 'all', of: [{ kind: 'filter', operator: 'equals', values: ['Europe'] }] }],
    })
  })

  it('fails closed when the filter attribute is missing', () => {
    expect(deals(user({}, ['sales']))?.rows).toEqual({ kind: 'any', of: [{ kind: 'all', of: [{ kind: 'none' }] }] })
  })

  it('combines matching policies with OR: the union of members and of rows', () => {
    const both = deals(user({ region: 'Asia' }, ['sales', 'managers']))
    expect(both?.members.has('margin')).toBe(true)
    expect(both?.rows).toBeNull()
  })

  it('applies a policy only when its conditions hold; allow_all false grants no rows', () => {
    expect(deals({ ...user({}, ['auditors']), securityContext: { audit: 'no' } })?.members.size).toBe(0)
    const auditor = deals({ ...user({}, ['auditors']), securityContext: { audit: 'yes' } })
    expect(auditor?.members.size).toBe(4)
    expect(auditor?.rows).toEqual({ kind: 'none' })
  })
})

describe('serviceMeta rowAccess', () => {
  const SECRET = `cubes:
  - name: deals
    sql_table: deals
    dimensions:
      - name: region
        type: string
      - name: margin
        title: Internal margin
        type: number
    measures:
      - name: count
        type: count
    access_policy:
      - group: sales
        row_level:
          filters:
            - member: region
              operator: equals
              values: ["{ securityContext.tenant_secret }"]
        member_level:
          excludes: [margin]
      - group: partners
        row_level:
          filters:
            - member: region
              operator: equals
              values: ["{ userAttributes.region }"]
            - member: margin
              operator: lt
              values: [0.35]
        member_level:
          excludes: [margin]
`
  const model = loadModel('test', [{ file: 'model.yml', text: SECRET }])
  const rowAccess = (who: UserAccess) =>
    buildMeta(model, accessView(model, who)).cubes.find((cube) => cube.name === 'deals')?.rowAccess

  it('names the members filtered on that the caller may see, never the values or a hidden member', () => {
    const seller = rowAccess({ ...user({}, ['sales']), securityContext: { tenant_secret: 'acct-7f3a9' } })
    expect(seller).toBe('limited by an access policy on Region')
    const partner = rowAccess(user({ region: 'Europe' }, ['partners']))
    expect(partner).toBe('limited by an access policy')
    for (const text of [seller, partner]) expect(text).not.toMatch(/acct-7f3a9|Europe|0\.35|margin/i)
    expect(rowAccess(user({}, ['nobody']))).toBeUndefined()
    expect(buildMeta(model, accessView(model, null)).cubes[0].rowAccess).toBeUndefined()
  })

  it('says so of a view over a cube whose rows are limited, as of the cube', () => {
    const viewed = loadModel('test', [
      {
        file: 'model.yml',
        text: `${SECRET}views:
  - name: deal_overview
    cubes:
      - join_path: deals
        includes: [region, count]
`,
      },
    ])
    const meta = (who: UserAccess | null) =>
      buildMeta(viewed, accessView(viewed, who)).cubes.find((cube) => cube.name === 'deal_overview')
    const seller = meta({ ...user({}, ['sales']), securityContext: { tenant_secret: 'acct-7f3a9' } })
    expect(seller?.rowAccess).toBe('limited by an access policy on Region')
    expect(meta(null)?.rowAccess).toBeUndefined()
  })
})
