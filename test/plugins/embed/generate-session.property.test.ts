import { describe, expect, it } from 'bun:test'
import fc from 'fast-check'
import { applyBootstrap } from '../../../src/bootstrap/apply'
import { eq, isNotNull } from 'drizzle-orm'
import { createTestApp, type TestApp } from '../../helpers/app'
import { testBootstrap } from '../../helpers/fixtures'
import { attributeCatalog, generate, groupCatalog, groupsOf, snapshotTables, userRow, valuesOf } from './helpers'

type Type = 'string' | 'number' | 'boolean' | 'string_array' | 'number_array'
type Value = string | number | boolean | string[] | number[] | null

interface Call {
  user: string
  spelling: { upper: boolean; padding: string }
  creatorMode: boolean
  groups?: string[]
  userAttributes?: Array<{ name: string; value: Value }>
  groupDefinitions?: Array<{ name: string; description?: string }>
  userAttributeDefinitions?: Array<{ name: string; type: Type; displayName?: string }>
  securityContext?: Record<string, number>
}

interface Definition {
  type: Type
  displayName?: string
}

interface Model {
  /** Scope label (`-` tenant-wide, `tenant-one` scoped) → group name → description. */
  groups: Map<string, Map<string, string | undefined>>
  attributes: Map<string, Map<string, Definition>>
  users: Map<string, { groups: Set<string>; values: Map<string, Value>; securityContext?: Record<string, number> }>
}

const TENANT = 'tenant-one'
const TYPES: Type[] = ['string', 'number', 'boolean', 'string_array', 'number_array']

function initialModel(): Model {
  return {
    groups: new Map([
      [
        '-',
        new Map<string, string | undefined>([
          ['sales', 'Sales team'],
          ['marketing', undefined],
          ['ops', undefined],
        ]),
      ],
      [TENANT, new Map()],
    ]),
    attributes: new Map([
      [
        '-',
        new Map<string, Definition>([
          ['region', { type: 'string' }],
          ['level', { type: 'number' }],
          ['beta', { type: 'boolean' }],
          ['regions', { type: 'string_array' }],
          ['codes', { type: 'number_array' }],
        ]),
      ],
      [TENANT, new Map()],
    ]),
    users: new Map(),
  }
}

function fits(type: Type, value: Exclude<Value, null>): boolean {
  if (type === 'string') return typeof value === 'string'
  if (type === 'number') return typeof value === 'number'
  if (type === 'boolean') return typeof value === 'boolean'
  if (!Array.isArray(value)) return false
  return (value as unknown[]).every((item) => typeof item === (type === 'string_array' ? 'string' : 'number'))
}

const hasDuplicates = (names: string[]) => new Set(names).size !== names.length

/** Applies `call` to a copy of the model; `undefined` when the call is invalid. */
function step(model: Model, call: Call): Model | undefined {
  // An externalId that is not lowercase and trimmed is refused, never merged into the user it would normalize to.
  if (call.spelling.upper || call.spelling.padding !== '') return undefined
  const definitionsSent = call.groupDefinitions !== undefined || call.userAttributeDefinitions !== undefined
  if (definitionsSent && !call.creatorMode) return undefined
  const scope = call.creatorMode ? TENANT : '-'
  const groups = new Map([...model.groups].map(([key, value]) => [key, new Map(value)]))
  const attributes = new Map(
    [...model.attributes].map(([key, value]) => [
      key,
      new Map([...value].map(([name, definition]) => [name, { ...definition }])),
    ]),
  )

  const groupDefinitions = call.groupDefinitions ?? []
  const attributeDefinitions = call.userAttributeDefinitions ?? []
  if (hasDuplicates(groupDefinitions.map((definition) => definition.name))) return undefined
  if (hasDuplicates(attributeDefinitions.map((definition) => definition.name))) return undefined
  for (const definition of attributeDefinitions) {
    const stored = attributes.get(scope)!.get(definition.name)
    if (stored && stored.type !== definition.type) return undefined
  }
  for (const definition of groupDefinitions) {
    const catalog = groups.get(scope)!
    if (!catalog.has(definition.name)) catalog.set(definition.name, definition.description)
    else if (definition.description !== undefined) catalog.set(definition.name, definition.description)
  }
  for (const definition of attributeDefinitions) {
    const catalog = attributes.get(scope)!
    const stored = catalog.get(definition.name)
    if (!stored) catalog.set(definition.name, { type: definition.type, displayName: definition.displayName })
    else if (definition.displayName !== undefined) stored.displayName = definition.displayName
  }

  const values = call.userAttributes ?? []
  if (hasDuplicates(values.map((attribute) => attribute.name))) return undefined
  for (const name of call.groups ?? []) if (!groups.get(scope)!.has(name)) return undefined
  for (const { name, value } of values) {
    const definition = attributes.get(scope)!.get(name)
    if (!definition) return undefined
    if (value !== null && !fits(definition.type, value)) return undefined
  }

  const users = new Map(
    [...model.users].map(([id, user]) => [id, { ...user, groups: new Set(user.groups), values: new Map(user.values) }]),
  )
  const user = users.get(call.user) ?? { groups: new Set<string>(), values: new Map<string, Value>() }
  users.set(call.user, user)
  const label = (name: string) => (scope === '-' ? name : `${scope}/${name}`)
  for (const { name, value } of values) {
    if (value === null) user.values.delete(label(name))
    else user.values.set(label(name), value)
  }
  if (call.groups !== undefined) {
    for (const member of [...user.groups]) if ((scope === '-') === !member.includes('/')) user.groups.delete(member)
    for (const name of call.groups) user.groups.add(label(name))
  }
  if (call.securityContext !== undefined) user.securityContext = call.securityContext
  return { groups, attributes, users }
}

function body(call: Call): Record<string, unknown> {
  const externalId = `${call.spelling.padding}${call.spelling.upper ? call.user.toUpperCase() : call.user}${call.spelling.padding}`
  const { user: _user, spelling: _spelling, creatorMode, ...fields } = call
  return { deploymentId: 1, externalId, ...(creatorMode && { creatorMode: true, embedTenantName: TENANT }), ...fields }
}

function expectedGroupCatalog(model: Model): string[] {
  const labels: string[] = []
  for (const [scope, catalog] of model.groups)
    for (const [name, description] of catalog)
      labels.push(`${scope}/${name}${description === undefined ? '' : `:${description}`}`)
  return labels.sort()
}

function expectedAttributeCatalog(model: Model): string[] {
  const labels: string[] = []
  for (const [scope, catalog] of model.attributes)
    for (const [name, definition] of catalog)
      labels.push(
        `${scope}/${name}:${definition.type}${definition.displayName === undefined ? '' : `:${definition.displayName}`}`,
      )
  return labels.sort()
}

async function assertSameState(test: TestApp, model: Model): Promise<void> {
  expect(await groupCatalog(test)).toEqual(expectedGroupCatalog(model))
  expect(await attributeCatalog(test)).toEqual(expectedAttributeCatalog(model))
  for (const [externalId, user] of model.users) {
    const row = (await userRow(test, externalId))!
    expect({ externalId, groups: await groupsOf(test, row.id) }).toEqual({
      externalId,
      groups: [...user.groups].sort(),
    })
    expect({ externalId, values: await valuesOf(test, row.id) }).toEqual({
      externalId,
      values: Object.fromEntries(user.values),
    })
    expect(row.securityContext === null ? undefined : JSON.parse(row.securityContext)).toEqual(user.securityContext)
  }
  const { users } = test.storage.tables
  const stored = await test.storage.db
    .select({ identity: users.identity })
    .from(users)
    .where(eq(users.kind, 'external'))
  expect(stored.map((row) => row.identity).sort()).toEqual([...model.users.keys()].sort())
}

/** The type each attribute name usually has, so most generated values fit and most calls get through. */
const USUAL_TYPE: Record<string, Type> = {
  region: 'string',
  level: 'number',
  beta: 'boolean',
  regions: 'string_array',
  codes: 'number_array',
  tier: 'string',
  seats: 'number',
}

const valueOf: Record<Type, fc.Arbitrary<Value>> = {
  string: fc.constantFrom('EU', 'US', ''),
  number: fc.integer({ min: -5, max: 5 }).map((n) => n / 2),
  boolean: fc.boolean(),
  string_array: fc.array(fc.constantFrom('EU', 'US'), { maxLength: 2 }),
  number_array: fc.array(fc.integer({ min: 0, max: 9 }), { maxLength: 2 }),
}
const anyValue: fc.Arbitrary<Value> = fc.oneof(...Object.values(valueOf), fc.constant(null))

/** Group names of the call's own scope mostly, sometimes of the other scope or unknown (both invalid). */
const groupName = (creatorMode: boolean) =>
  fc.oneof(
    {
      weight: 12,
      arbitrary: creatorMode ? fc.constantFrom('editors', 'viewers') : fc.constantFrom('sales', 'marketing', 'ops'),
    },
    { weight: 1, arbitrary: fc.constantFrom('sales', 'editors', 'nope') },
  )
const attribute = fc.oneof(
  {
    weight: 8,
    arbitrary: fc
      .constantFrom(...Object.keys(USUAL_TYPE))
      .chain((name) =>
        fc
          .oneof({ weight: 5, arbitrary: valueOf[USUAL_TYPE[name]] }, { weight: 1, arbitrary: fc.constant(null) })
          .map((value) => ({ name, value })),
      ),
  },
  { weight: 1, arbitrary: fc.record({ name: fc.constantFrom('region', 'shoe', 'tier'), value: anyValue }) },
)
const attributeDefinition = fc.constantFrom('tier', 'seats', 'region').chain((name) =>
  fc.record(
    {
      name: fc.constant(name),
      type: fc.oneof(
        { weight: 6, arbitrary: fc.constant(USUAL_TYPE[name]) },
        { weight: 1, arbitrary: fc.constantFrom(...TYPES) },
      ),
      displayName: fc.constantFrom('A', 'B'),
    },
    { requiredKeys: ['name', 'type'] },
  ),
)

const call: fc.Arbitrary<Call> = fc
  .boolean()
  .chain((creatorMode) =>
    fc.record(
      {
        user: fc.constantFrom('ann', 'ben', 'cy'),
        // Mostly as stored, sometimes not: other spellings of an id are refused, so they must not crowd out valid calls.
        spelling: fc.oneof(
          { weight: 5, arbitrary: fc.constant({ upper: false, padding: '' }) },
          { weight: 1, arbitrary: fc.record({ upper: fc.boolean(), padding: fc.constantFrom('', ' ', '\t') }) },
        ),
        creatorMode: fc.constant(creatorMode),
        groups: fc.array(groupName(creatorMode), { maxLength: 3 }),
        userAttributes: fc.array(attribute, { maxLength: 2 }),
        // Definitions without creator mode are invalid: sent now and then only.
        groupDefinitions: fc.oneof(
          {
            weight: creatorMode ? 4 : 0,
            arbitrary: fc.array(
              fc.record(
                {
                  name: fc.constantFrom('editors', 'viewers', 'sales'),
                  description: fc.constantFrom('first', 'second'),
                },
                { requiredKeys: ['name'] },
              ),
              { maxLength: 2 },
            ),
          },
          { weight: creatorMode ? 0 : 1, arbitrary: fc.constant([{ name: 'editors' }]) },
          { weight: 4, arbitrary: fc.constant(undefined) },
        ),
        userAttributeDefinitions: fc.oneof(
          { weight: creatorMode ? 4 : 0, arbitrary: fc.array(attributeDefinition, { maxLength: 2 }) },
          { weight: 1, arbitrary: fc.constant(undefined) },
        ),
        securityContext: fc.dictionary(fc.constantFrom('org', 'team'), fc.integer({ min: 0, max: 3 }), { maxKeys: 2 }),
      },
      { requiredKeys: ['user', 'spelling', 'creatorMode'] },
    ),
  )
  .map(
    (generated) =>
      Object.fromEntries(Object.entries(generated).filter(([, value]) => value !== undefined)) as unknown as Call,
  )

/**
 * Puts the app back in its bootstrap state between runs (one app for all runs keeps the property fast): removes what
 * generate-session writes, then re-applies the bootstrap, which restores anything tenant-wide a bug might change.
 */
async function reset(test: TestApp): Promise<void> {
  const { embedSessions, users, groupMemberships, userAttributeValues, groups, userAttributeDefinitions } =
    test.storage.tables
  await test.storage.transaction(async (tx) => {
    await tx.delete(embedSessions)
    await tx.delete(users).where(eq(users.kind, 'external'))
    await tx.delete(groupMemberships)
    await tx.delete(userAttributeValues)
    await tx.delete(groups).where(isNotNull(groups.embedTenantId))
    await tx.delete(userAttributeDefinitions).where(isNotNull(userAttributeDefinitions.embedTenantId))
  })
  await applyBootstrap(test.storage, testBootstrap(), 'test bootstrap')
}

/**
 * A simple model of how generate-session provisions users (attributes and their types, groups, creator-mode group
 * and attribute definitions), written apart from the implementation: random sequences of generate-session calls for
 * a handful of users must leave the database in the model's state, and every call the model calls invalid must fail
 * with 400 and change nothing.
 */
describe('POST /api/v1/embed/generate-session (model)', () => {
  it(
    'ends in the state of the model after any sequence of calls, and a failing call changes nothing',
    async () => {
      const outcomes = { valid: 0, invalid: 0 }
      const test = createTestApp()
      await test.ready
      const initial = await snapshotTables(test)
      try {
        await fc.assert(
          fc.asyncProperty(fc.array(call, { minLength: 1, maxLength: 12 }), async (calls) => {
            await reset(test)
            expect(await snapshotTables(test)).toEqual(initial)
            let model = initialModel()
            for (const next of calls) {
              const expected = step(model, next)
              const before = expected ? undefined : await snapshotTables(test)
              const response = await generate(test, body(next))
              outcomes[expected ? 'valid' : 'invalid']++
              expect({ call: next, status: response.status }).toEqual({ call: next, status: expected ? 200 : 400 })
              if (expected) model = expected
              else expect(await snapshotTables(test)).toEqual(before!)
            }
            await assertSameState(test, model)
          }),
          { numRuns: 100 },
        )
      } finally {
        await test.close()
      }
      // Both kinds must be common, or the property says little about one of them.
      expect(outcomes.valid).toBeGreaterThan((outcomes.valid + outcomes.invalid) / 4)
      expect(outcomes.invalid).toBeGreaterThan((outcomes.valid + outcomes.invalid) / 4)
    },
    // A budget for the runner on a loaded machine, not a performance assertion.
    60_000,
  )
})
