import { Type as t, type Static } from '@sinclair/typebox'
import { AttributeType, EMBED_TENANT_NAME_PATTERN } from '../../plugins/embed/model'

export const ACCOUNT_NAME_PATTERN = '^[a-z][a-z0-9-]{2,62}$'

export const Plan = t.Union([t.Literal('free'), t.Literal('starter'), t.Literal('premium'), t.Literal('enterprise')])
export type Plan = Static<typeof Plan>

const Id = t.Integer({ minimum: 1 })

export const BootstrapApiKey = t.Object(
  {
    name: t.String({ minLength: 1, maxLength: 100 }),
    // Printable ASCII without spaces: what an `Authorization: Api-Key <key>` header can carry.
    key: t.String({ minLength: 16, maxLength: 512, pattern: '^[\\x21-\\x7e]+$' }),
    admin: t.Optional(t.Boolean()),
    deployments: t.Optional(t.Array(Id)),
    revoked: t.Optional(t.Boolean()),
    /** The key's management policy; omitted: `admin` for admin keys, `editor` otherwise. Restored at every start. */
    role: t.Optional(t.Union([t.Literal('admin'), t.Literal('editor'), t.Literal('viewer')])),
  },
  { additionalProperties: false },
)

export const BootstrapAgent = t.Object(
  {
    id: Id,
    name: t.String({ minLength: 1, maxLength: 200 }),
    kind: t.Optional(t.Union([t.Literal('analyst'), t.Literal('scripted')])),
    /** Options of the agent kind (the scripted agent's script, say). */
    config: t.Optional(t.Record(t.String(), t.Unknown())),
  },
  { additionalProperties: false },
)

/** Where a deployment's model reads its data; omitted, the model folder's `data.db` or the demo data. */
export const BootstrapDataSource = t.Object(
  {
    type: t.Union([t.Literal('sqlite'), t.Literal('postgres'), t.Literal('mysql'), t.Literal('duckdb')]),
    /** `postgres://` or `mysql://`; `${NAME}` is read from the environment at start. */
    url: t.Optional(t.String({ minLength: 1 })),
    /** A database file (sqlite, duckdb), relative to the working directory. */
    path: t.Optional(t.String({ minLength: 1 })),
    schema: t.Optional(t.String({ minLength: 1, maxLength: 200 })),
    maxConnections: t.Optional(t.Integer({ minimum: 1, maximum: 200 })),
    queryTimeoutMs: t.Optional(t.Integer({ minimum: 100, maximum: 3_600_000 })),
  },
  { additionalProperties: false },
)
export type BootstrapDataSource = Static<typeof BootstrapDataSource>

export const BootstrapDeployment = t.Object(
  {
    id: Id,
    name: t.String({ minLength: 1, maxLength: 200 }),
    branches: t.Optional(
      t.Array(t.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9._/-]+$' }), { minItems: 1 }),
    ),
    model: t.Optional(t.String({ minLength: 1 })),
    dataSource: t.Optional(BootstrapDataSource),
    tokenAuth: t.Optional(
      t.Object(
        { enabled: t.Optional(t.Boolean()), secret: t.Optional(t.String({ minLength: 1 })) },
        { additionalProperties: false },
      ),
    ),
    agents: t.Optional(t.Array(BootstrapAgent)),
  },
  { additionalProperties: false },
)

export const BootstrapAccount = t.Object(
  {
    name: t.String({ pattern: ACCOUNT_NAME_PATTERN }),
    plan: Plan,
    maxExternalUsers: t.Optional(t.Integer({ minimum: 0 })),
    settings: t.Optional(t.Object({ showDashboardChat: t.Optional(t.Boolean()) }, { additionalProperties: false })),
    apiKeys: t.Optional(t.Array(BootstrapApiKey)),
    users: t.Optional(
      t.Array(t.Object({ username: t.String({ minLength: 1, maxLength: 320 }) }, { additionalProperties: false })),
    ),
    groups: t.Optional(
      t.Array(
        t.Object(
          { name: t.String({ minLength: 1, maxLength: 200 }), description: t.Optional(t.String()) },
          { additionalProperties: false },
        ),
      ),
    ),
    userAttributes: t.Optional(
      t.Array(
        t.Object(
          {
            name: t.String({ minLength: 1, maxLength: 200 }),
            type: AttributeType,
            displayName: t.Optional(t.String()),
            defaultValue: t.Optional(t.String()),
            description: t.Optional(t.String()),
          },
          { additionalProperties: false },
        ),
      ),
    ),
    embedTenants: t.Optional(
      t.Array(
        t.Object(
          {
            name: t.String({ pattern: EMBED_TENANT_NAME_PATTERN }),
            useCreatorMode: t.Optional(t.Boolean()),
            displayName: t.Optional(t.String()),
          },
          { additionalProperties: false },
        ),
      ),
    ),
    deployments: t.Optional(t.Array(BootstrapDeployment)),
  },
  { additionalProperties: false },
)

/** The bootstrap file (`BOOTSTRAP_FILE`). One schema: validation, types and the README's reference. */
export const BootstrapFile = t.Object({ accounts: t.Array(BootstrapAccount) }, { additionalProperties: false })

export type BootstrapFile = Static<typeof BootstrapFile>
export type BootstrapAccount = Static<typeof BootstrapAccount>
export type BootstrapDeployment = Static<typeof BootstrapDeployment>
export type BootstrapApiKey = Static<typeof BootstrapApiKey>
