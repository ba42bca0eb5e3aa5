import type { UserAccess } from '../../auth/user-provisioner'

/**
 * The small, safe expression language of access policies: `{ path }`, `{ path == null }`, `{ path != null }`,
 * `{ path == 'literal' }`, `{ path != 'literal' }`, where a path is `userAttributes.<name>`,
 * `securityContext.<key>[.<key>...]` or `groups`. Parsed once at model load (errors name the policy), evaluated
 * by walking plain objects: no `eval`, no property access outside the caller's own access record.
 */
export type Literal = string | number | boolean | null

export interface Condition {
  path: string[]
  operator: 'truthy' | '==' | '!='
  value: Literal
}

/** A filter value: a literal, or a path read from the caller's access at query time. */
export type ValueTemplate = { literal: string | number | boolean } | { path: string[] }

const PATH = /^(userAttributes\.[A-Za-z_][\w-]*|securityContext(\.[A-Za-z_][\w-]*)+|groups)$/
const CONDITION = /^\{\s*([A-Za-z_][\w.-]*)\s*(?:(==|!=)\s*(null|true|false|-?\d+(?:\.\d+)?|'[^']*'|"[^"]*"))?\s*\}$/

function parsePath(text: string): string[] {
  if (!PATH.test(text))
    throw new Error(`unsupported path "${text}": use userAttributes.<name>, securityContext.<key> or groups`)
  return text.split('.')
}

function parseLiteral(text: string): Literal {
  if (text === 'null') return null
  if (text === 'true') return true
  if (text === 'false') return false
  if (text.startsWith("'") || text.startsWith('"')) return text.slice(1, -1)
  return Number(text)
}

/** Parses `{ userAttributes.region != null }`; throws an `Error` whose message explains the accepted forms. */
export function parseCondition(text: string): Condition {
  const match = CONDITION.exec(text.trim())
  if (!match)
    throw new Error(
      `cannot read condition ${JSON.stringify(text)}: expected "{ path }", "{ path == null }", "{ path != null }" or "{ path == 'value' }"`,
    )
  const path = parsePath(match[1])
  if (!match[2]) return { path, operator: 'truthy', value: null }
  return { path, operator: match[2] as '==' | '!=', value: parseLiteral(match[3]) }
}

/** A filter value: `"{ userAttributes.region }"` reads the caller's attribute; anything else is a literal. */
export function parseValueTemplate(value: string | number | boolean): ValueTemplate {
  if (typeof value !== 'string') return { literal: value }
  const match = /^\{\s*([A-Za-z_][\w.-]*)\s*\}$/.exec(value.trim())
  if (!match) {
    if (value.includes('{') && value.includes('}'))
      throw new Error(
        `cannot read value ${JSON.stringify(value)}: a template must be the whole value, like "{ userAttributes.region }"`,
      )
    return { literal: value }
  }
  return { path: parsePath(match[1]) }
}

/** The value at `path` in the caller's access, or undefined. Only own properties of plain data are followed. */
export function readPath(access: UserAccess, path: string[]): unknown {
  const [root, ...rest] = path
  if (root === 'groups') return access.groups
  let value: unknown = root === 'userAttributes' ? access.userAttributes : access.securityContext
  for (const key of rest) {
    if (value === null || typeof value !== 'object' || Array.isArray(value) || !Object.hasOwn(value, key))
      return undefined
    value = (value as Record<string, unknown>)[key]
  }
  return value
}

function present(value: unknown): boolean {
  if (value === undefined || value === null || value === false || value === '') return false
  return !(Array.isArray(value) && value.length === 0)
}

function equals(value: unknown, literal: Literal): boolean {
  if (literal === null) return value === undefined || value === null
  if (Array.isArray(value)) return value.some((item) => equals(item, literal))
  if (value === undefined || value === null || typeof value === 'object') return false
  return String(value) === String(literal)
}

export function evaluateCondition(condition: Condition, access: UserAccess): boolean {
  const value = readPath(access, condition.path)
  if (condition.operator === 'truthy') return present(value)
  const same = equals(value, condition.value)
  return condition.operator === '==' ? same : !same
}

/**
 * The scalar values a template stands for. `undefined` means the caller lacks the value (missing, null, empty
 * array, or not a scalar): the filter using it must then match no rows, never all of them.
 */
export function resolveValues(
  template: ValueTemplate,
  access: UserAccess,
): Array<string | number | boolean> | undefined {
  if ('literal' in template) return [template.literal]
  const value = readPath(access, template.path)
  const scalar = (item: unknown) => typeof item === 'string' || typeof item === 'number' || typeof item === 'boolean'
  if (Array.isArray(value))
    return value.length > 0 && value.every(scalar) ? (value as Array<string | number | boolean>) : undefined
  return scalar(value) ? [value as string | number | boolean] : undefined
}
