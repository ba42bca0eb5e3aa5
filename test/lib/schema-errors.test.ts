import { describe, expect, it } from 'bun:test'
import { Type as t } from '@sinclair/typebox'
import { schemaErrors } from '../../lib/schema-errors'

describe('schemaErrors', () => {
  it('names the kinds a union of plain kinds takes, where TypeBox says "expected union value"', () => {
    const schema = t.Object({
      value: t.Union([t.String(), t.Number(), t.Array(t.String()), t.Array(t.Number()), t.Null()]),
    })
    expect(schemaErrors(schema, { value: { a: 1 } })).toEqual([
      'value: expected a string, a number, an array of strings, an array of numbers or null',
    ])
  })

  it("says what a pattern's text must be from its schema's description, and keeps the pattern without one", () => {
    const described = t.Object({
      name: t.String({ pattern: '^[a-z]{5,}$', description: 'Five or more lowercase letters.' }),
    })
    expect(schemaErrors(described, { name: 'AB' })).toEqual([
      'name: expected text of this form: five or more lowercase letters',
    ])
    const bare = t.Object({ name: t.String({ pattern: '^[a-z]{5,}$' }) })
    expect(schemaErrors(bare, { name: 'AB' })).toEqual(["name: expected string to match '^[a-z]{5,}$'"])
  })

  it('names the rule a value breaks in the one member of its kind, where the union only listed the kinds', () => {
    const schema = t.Object({
      slug: t.Union([t.String({ pattern: '^[a-z-]+$', description: 'Lowercase words joined by `-`' }), t.Null()]),
      folderId: t.Union([t.Integer({ minimum: 1 }), t.Null()]),
      nested: t.Union([t.Union([t.String({ format: 'integer' }), t.Integer({ minimum: 1 })]), t.Null()]),
    })
    expect(schemaErrors(schema, { slug: 'Not A Slug', folderId: null, nested: null })).toEqual([
      'slug: expected text of this form: lowercase words joined by `-`',
    ])
    expect(schemaErrors(schema, { slug: null, folderId: 0, nested: null })).toEqual([
      'folderId: expected an integer of at least 1',
    ])
    expect(schemaErrors(schema, { slug: null, folderId: 1.5, nested: null })).toEqual([
      'folderId: expected an integer of at least 1',
    ])
    // A kind no member takes still lists the kinds.
    expect(schemaErrors(schema, { slug: 5, folderId: null, nested: null })).toEqual(['slug: expected a string or null'])
  })

  it('reads a union of objects told apart by a constant tag as the member the tag names', () => {
    const schema = t.Object({
      to: t.Union([
        t.Object({ kind: t.Literal('user'), email: t.String({ pattern: '@' }) }, { additionalProperties: false }),
        t.Object({ kind: t.Literal('embedUser'), externalId: t.String() }, { additionalProperties: false }),
      ]),
    })
    expect(schemaErrors(schema, { to: { kind: 'user', email: 'bob' } })).toEqual([
      "to.email: expected string to match '@'",
    ])
    expect(schemaErrors(schema, { to: { kind: 'embedUser' } })).toEqual(['to.externalId: required'])
    expect(schemaErrors(schema, { to: { kind: 'robot' } })).toEqual(['to.kind: expected one of user, embedUser'])
  })

  it('keeps the capitals of an acronym that opens a description', () => {
    const schema = t.Object({ locale: t.String({ pattern: '^[a-z]{2}$', description: 'BCP 47 tag, e.g. `en`' }) })
    expect(schemaErrors(schema, { locale: '!' })).toEqual(['locale: expected text of this form: BCP 47 tag, e.g. `en`'])
  })

  it('keeps the field-level message of a union of objects it cannot name in words', () => {
    const schema = t.Object({ either: t.Union([t.Object({ a: t.String() }), t.Object({ b: t.Number() })]) })
    expect(schemaErrors(schema, { either: 5 })[0]).toStartWith('either: ')
  })
})
