/** The properties string conversion looks up; JSON may give an object its own, non-callable, ones. */
const CONVERSIONS = ['toString', 'valueOf'] as const

function describeObject(this: object): string {
  return Array.isArray(this) ? '[array]' : '[object Object]'
}

/**
 * Makes every object of a parsed request value convertible to a string again. JSON such as `{"toString": false}`
 * yields an object that throws a TypeError when turned into a string, and Elysia's validation error does exactly
 * that when it describes a field that fails its schema: a client's typo became a 500. The object gets a
 * non-enumerable `Symbol.toPrimitive`, which string conversion tries first; its data is untouched (JSON,
 * `Object.keys` and schema checks do not see symbol keys). The walk uses its own stack, so deeply nested JSON
 * cannot overflow the call stack.
 */
export function makePrintable(value: unknown): void {
  const pending: unknown[] = [value]
  while (pending.length > 0) {
    const item = pending.pop()
    if (typeof item !== 'object' || item === null) continue
    if (CONVERSIONS.some((name) => Object.hasOwn(item, name)) && !Object.hasOwn(item, Symbol.toPrimitive))
      Object.defineProperty(item, Symbol.toPrimitive, { value: describeObject, enumerable: false })
    for (const child of Object.values(item)) if (typeof child === 'object' && child !== null) pending.push(child)
  }
}
