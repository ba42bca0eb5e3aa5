import fc from 'fast-check'

/** The parts of a JSON schema the fuzzer reads, to shape its bodies. */
export interface JsonSchema {
  type?: string | string[]
  properties?: Record<string, JsonSchema>
  items?: JsonSchema
  enum?: unknown[]
  const?: unknown
  anyOf?: JsonSchema[]
  oneOf?: JsonSchema[]
  $ref?: string
  required?: string[]
}

const SQLISH = [
  "' OR '1'='1",
  '1; DROP TABLE accounts; --',
  'SELECT * FROM sqlite_master',
  "SELECT MEASURE(orders.count) FROM orders; ATTACH DATABASE '/tmp/x' AS x",
  'SELECT load_extension("x")',
  "') UNION SELECT key_hash FROM api_keys --",
  'SELECT customers.region AS "__proto__", MEASURE(orders.count) FROM orders GROUP BY 1',
  'SELECT MEASURE(orders.count) FROM orders WHERE orders.status IN (' + '?,'.repeat(2000) + '?)',
  'WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT n FROM r',
]

/** Strings a careless handler trips over: SQL, unicode edge cases, path tricks, huge and empty ones. */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...SQLISH) },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      '',
      ' ',
      '\u0000',
      '\ud800',
      '\udfff\ud800',
      '\u202e\u0644\u0627',
      '💥🧨'.repeat(50),
      'NaN',
      'Infinity',
      '-0',
      '1e309',
      '9007199254740993',
      '../../etc/passwd',
      '%2e%2e%2f',
      '__proto__',
      'constructor',
      'prototype',
      'null',
      'undefined',
      'true',
      '<script>alert(1)</script>',
      '${7*7}{{7*7}}',
      'a'.repeat(70_000),
    ),
  },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ maxLength: 20 }) },
)

const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  hostileString,
  fc.constantFrom(null, true, false, 0, -1, 1.5, 2 ** 53, -(2 ** 31), [], {}, [null], { __proto__: null }),
  // Objects that cannot be turned into a string, as a server describing a wrong value might try to.
  fc.constantFrom({ toString: false }, { toString: {}, valueOf: null }),
  fc.double(),
  fc.jsonValue({ maxDepth: 3 }),
)

/** A value that fits a schema most of the time, so the handler behind validation is reached too. */
function plausible(schema: JsonSchema | undefined, depth = 0, name = ''): fc.Arbitrary<unknown> {
  if (!schema || depth > 4) return hostileValue
  const known = BY_NAME[name]
  if (known && schema.type !== 'object' && schema.type !== 'array')
    return fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...known) }, plausibleOfType(schema, depth))
  return plausibleOfType(schema, depth)
}

/** Values that exist or make sense for fields of these names, so requests get past the first lookup. */
const BY_NAME: Record<string, unknown[]> = {
  query: [
    'SELECT MEASURE(orders.count) FROM orders',
    'SELECT customers.region, MEASURE(orders.total_amount) FROM orders GROUP BY 1',
  ],
  sqlQuery: ['SELECT MEASURE(orders.count) FROM orders'],
  input: ['How many orders were placed in 2024?', 'What was the revenue by region?', 'hello'],
  externalId: ['fuzz-user', 'fuzz-other', 'acme-7'],
  internalId: ['bob', 'alice@acme.com'],
  deploymentId: [1, 2, 3],
  embedTenantName: ['tenant-one', 'tenant-two'],
  name: ['region', 'sales', 'A folder'],
  branchName: ['main', 'dev'],
  activeBranchName: ['main', 'dev'],
  email: ['someone@example.com'],
  messageId: ['1795507716127-message'],
}

function plausibleOfType(schema: JsonSchema, depth: number): fc.Arbitrary<unknown> {
  if (schema.const !== undefined) return fc.constant(schema.const)
  if (schema.enum) return fc.constantFrom(...schema.enum)
  const choices = schema.anyOf ?? schema.oneOf
  if (choices?.length) return fc.oneof(...choices.map((choice) => plausible(choice, depth + 1)))
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type
  switch (type) {
    case 'string':
      return fc.oneof(
        fc.constantFrom('acme', 'tenant-one', 'sales', 'region', 'user-1', 'SELECT MEASURE(orders.count) FROM orders'),
        fc.string({ maxLength: 12 }),
      )
    case 'integer':
    case 'number':
      return fc.oneof(fc.constantFrom(1, 2, 3), fc.integer({ min: -5, max: 5 }))
    case 'boolean':
      return fc.boolean()
    case 'array':
      return fc.array(plausible(schema.items, depth + 1), { maxLength: 3 })
    case 'object':
      return objectOf(schema, depth)
    default:
      return hostileValue
  }
}

function objectOf(schema: JsonSchema, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const properties = Object.entries(schema.properties ?? {})
  if (properties.length === 0) return fc.dictionary(fc.string({ maxLength: 8 }), hostileValue, { maxKeys: 3 })
  const required = (schema.required ?? []).filter((name) => schema.properties?.[name])
  return fc.record(
    Object.fromEntries(properties.map(([name, property]) => [name, plausible(property, depth + 1, name)])),
    { requiredKeys: required },
  )
}

/** A body for an operation: valid-looking with one field made hostile, random JSON, broken JSON, or none. */
export function bodyArbitrary(operation: { body: JsonSchema | undefined }): fc.Arbitrary<string | undefined> {
  const shaped = objectOf(operation.body ?? { type: 'object' }, 0)
  const mutated = fc.tuple(shaped, fc.string({ maxLength: 10 }), hostileValue).map(([object, key, value]) => {
    const keys = Object.keys(operation.body?.properties ?? {})
    const target = keys.length > 0 ? keys[Math.abs(hashOf(key)) % keys.length] : key
    return JSON.stringify({ ...object, [target]: value })
  })
  const pollution = shaped.map((object) => {
    const text = JSON.stringify(object)
    const inject =
      '"__proto__":{"admin":true,"isAdmin":true,"deployments":null},"constructor":{"prototype":{"polluted":1}}'
    return text === '{}' ? `{${inject}}` : `{${inject},${text.slice(1)}`
  })
  return fc.oneof(
    { weight: 4, arbitrary: shaped.map((object) => JSON.stringify(object)) },
    { weight: 5, arbitrary: mutated },
    { weight: 2, arbitrary: pollution },
    { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((value) => JSON.stringify(value)) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        '',
        '{',
        '{"a":',
        '[1,2',
        'nul',
        '\u0000',
        '{"query": "\\ud800"}',
        '{}{}',
        '{"a":1,"a":2}',
        'a=1&__proto__[admin]=true',
        '--zz\r\nContent-Disposition: form-data; name="x"\r\n\r\n1\r\n--zz--',
        '['.repeat(5000) + ']'.repeat(5000),
        JSON.stringify({ input: 'x'.repeat(300_000) }),
      ),
    },
    { weight: 1, arbitrary: fc.constant(undefined) },
  )
}

function hashOf(text: string): number {
  let hash = 0
  for (const char of text) hash = (hash * 31 + char.charCodeAt(0)) | 0
  return hash
}
