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

  it('keeps the field-level message of a union of objects it cannot name in words', () => {
    const schema = t.Object({ either: t.Union([t.Object({ a: t.String() }), t.Object({ b: t.Number() })]) })
    expect(schemaErrors(schema, { either: 5 })[0]).toStartWith('either: ')
  })
})
