import { FormatRegistry } from '@sinclair/typebox'
import 'elysia'

/**
 * A number written as text in a path or a query (`/folders/12`, `?first=20`): decimal digits, an optional minus, no
 * more than a safe integer holds. The framework's own check took anything `Number()` reads: `/folders/0x1`,
 * `/folders/1e0` and `/folders/%201` all answered folder 1, and `/folders/9007199254740993` was rounded to another
 * folder's id. Those are 400 now, as `deploymentId` already was.
 */
const DECIMAL_INTEGER = /^-?\d{1,16}$/

export function isDecimalInteger(text: string): boolean {
  return DECIMAL_INTEGER.test(text) && Number.isSafeInteger(Number(text))
}

// Registered after the framework's (the import above runs it first), in its place: formats are looked up when a
// value is checked, so routes compiled later use this one.
FormatRegistry.Set('integer', (value) => isDecimalInteger(value))
