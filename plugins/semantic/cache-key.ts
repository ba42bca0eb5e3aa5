/**
 * A cache key for plain data that two different values never share: every value carries its type (the number
 * `Infinity` and `null`, or the string `"1"` and the number `1`, stay apart, which `JSON.stringify` alone does not
 * do), and object keys are sorted, so the same access written in another order still finds its entry.
 */
export function cacheKey(value: unknown): string {
  return JSON.stringify(tagged(value))
}

function tagged(value: unknown): unknown {
  switch (typeof value) {
    case 'string':
      return ['s', value]
    case 'number':
      return ['n', Number.isFinite(value) ? value : String(value)]
    case 'boolean':
      return ['b', value]
    case 'bigint':
      return ['i', value.toString()]
    case 'undefined':
      return ['u']
    case 'object':
      if (value === null) return ['z']
      if (Array.isArray(value)) return ['a', value.map(tagged)]
      return [
        'o',
        Object.keys(value)
          .sort()
          .map((key) => [key, tagged((value as Record<string, unknown>)[key])]),
      ]
    default:
      return ['?', String(value)]
  }
}
