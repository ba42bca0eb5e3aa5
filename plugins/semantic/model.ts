import { Type } from '@sinclair/typebox'
import { t } from 'elysia'
import { SessionSettings } from '../auth/session-settings'

/** The wire shapes of `.../meta`, `.../sql` and the `serviceMeta` / `serviceSqlApi` tools */

export const ROW_CAP = 100
export const MAX_ROUTE_LIMIT = 10_000

export const MetaMember = t.Object({
  /** `cube.member`, as queries name it. */
  name: t.String(),
  title: t.String(),
  description: t.Optional(t.String()),
  /** Dimensions: string, number, time, boolean. Measures: count, count_distinct, sum, avg, min, max, number. */
  type: t.String(),
  format: t.Optional(t.String()),
  primaryKey: t.Optional(t.Boolean()),
  /** Other words for the member (`revenue`, `sales`), when the model gives some. */
  synonyms: t.Optional(t.Array(t.String())),
})
export type MetaMember = typeof MetaMember.static

export const MetaCube = t.Object({
  name: t.String(),
  title: t.String(),
  description: t.Optional(t.String()),
  type: t.Union([t.Literal('cube'), t.Literal('view')]),
  /** Other words for the cube's rows (`orders`, `invoices`), when the model gives some. */
  synonyms: t.Optional(t.Array(t.String())),
  /** The dimension (`cube.member`) that names a row: group by the primary key, show this. */
  label: t.Optional(t.String()),
  /** The cube whose rows this one reads in a role (`manager` of `employee`). */
  roleOf: t.Optional(t.String()),
  measures: t.Array(MetaMember),
  dimensions: t.Array(MetaMember),
  /**
   * Cubes whose members combine with this one's in a query, and how rows relate; `role` says what the joined row
   * is to this one (`manager`), `inferred` that the join was guessed from column names.
   */
  joins: t.Array(
    t.Object({
      name: t.String(),
      relationship: t.String(),
      role: t.Optional(t.String()),
      inferred: t.Optional(t.Boolean()),
    }),
  ),
  /**
   * Present when an access policy limits the rows of this cube the caller may see (`limited by an access policy on
   * Region`): every number is over those rows only. It names the members filtered on that the caller may see, never
   * the policy's values. Absent when the caller sees every row.
   */
  rowAccess: t.Optional(t.String()),
})
export type MetaCube = typeof MetaCube.static

export const MetaResult = t.Object({ cubes: t.Array(MetaCube) })
export type MetaResult = typeof MetaResult.static

export const SqlResult = t.Object({
  schema: t.Array(t.Object({ name: t.String(), column_type: t.String() })),
  /** Values as text, null as null. */
  data: t.Array(t.Array(t.Union([t.String(), t.Null()]))),
  /** Rows the query produced before the row cap. */
  totalRows: t.Integer(),
  /**
   * Present when the answer came from the cache rather than the database: when it was computed (ISO 8601, UTC).
   * Answers are cached for up to 10 minutes, so the data may have changed since.
   */
  cached: t.Optional(t.Object({ computedAt: t.String({ description: 'When the database computed this answer' }) })),
})
export type SqlResult = typeof SqlResult.static

export const ServiceMetaInput = t.Object({ searchQuery: t.Optional(t.String({ maxLength: 500 })) })
export type ServiceMetaInput = typeof ServiceMetaInput.static

export const ServiceSqlApiInput = t.Object({
  sqlQuery: t.String({ minLength: 1, maxLength: 20_000 }),
  queryTitle: t.Optional(t.String()),
  description: t.Optional(t.String()),
  userRequest: t.Optional(t.String()),
})
export type ServiceSqlApiInput = typeof ServiceSqlApiInput.static

export const MetaQuery = t.Object({
  searchQuery: t.Optional(
    t.String({ maxLength: 500, description: 'Keeps cubes and members whose name, title or description match' }),
  ),
  branchName: t.Optional(
    t.String({ minLength: 1, description: 'A branch of the deployment; the default branch when omitted' }),
  ),
})

export const SqlBody = t.Object(
  {
    query: t.String({
      minLength: 1,
      maxLength: 20_000,
      description: 'One SELECT over cubes, with MEASURE(cube.measure) for measures',
    }),
    branchName: t.Optional(t.String({ minLength: 1 })),
    sessionSettings: t.Optional(SessionSettings),
    // TypeBox's integer: Elysia's also takes strings that read as numbers.
    limit: t.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_ROUTE_LIMIT,
        description: `Rows returned (default ${ROW_CAP}, at most ${MAX_ROUTE_LIMIT}); totalRows counts them all`,
      }),
    ),
  },
  { additionalProperties: false },
)
export type SqlBody = typeof SqlBody.static

export const DeploymentParams = t.Object({ deploymentId: t.String({ pattern: '^\\d{1,15}$' }) })
