import { Type as t, type Static } from '@sinclair/typebox'

/**
 * The Cube-style model file (`cubes:` and `views:` in YAML), checked with TypeBox before the semantic checks that
 * span entries (references, joins, duplicates). Field names are Cube's (snake_case), so Cube models port over.
 */
const Name = t.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]*$', maxLength: 100 })
const Text = t.String({ maxLength: 10_000 })
/** Other words people use for a cube or member (`revenue`, `sales`, `turnover`): how questions find it. */
const Synonyms = t.Array(t.String({ minLength: 1, maxLength: 100 }), { maxItems: 50 })

export const MeasureType = t.Union([
  t.Literal('count'),
  t.Literal('count_distinct'),
  t.Literal('sum'),
  t.Literal('avg'),
  t.Literal('min'),
  t.Literal('max'),
  t.Literal('number'),
])
export type MeasureType = Static<typeof MeasureType>

export const DimensionType = t.Union([
  t.Literal('string'),
  t.Literal('number'),
  t.Literal('time'),
  t.Literal('boolean'),
])
export type DimensionType = Static<typeof DimensionType>

export const MeasureFile = t.Object(
  {
    name: Name,
    type: MeasureType,
    /** Column or expression; for `number`, an expression over other measures (`{count}`, `{orders.total}`). */
    sql: t.Optional(Text),
    title: t.Optional(Text),
    description: t.Optional(Text),
    synonyms: t.Optional(Synonyms),
    /** `false` hides the member from meta and queries (a building block for `number` measures). */
    public: t.Optional(t.Boolean()),
    format: t.Optional(t.Union([t.Literal('currency'), t.Literal('percent'), t.Literal('number')])),
    /** Only rows matching every filter count toward the measure. */
    filters: t.Optional(t.Array(t.Object({ sql: Text }, { additionalProperties: false }))),
  },
  { additionalProperties: false },
)
export type MeasureFile = Static<typeof MeasureFile>

export const DimensionFile = t.Object(
  {
    name: Name,
    type: DimensionType,
    /** Defaults to the column of the same name. */
    sql: t.Optional(Text),
    title: t.Optional(Text),
    description: t.Optional(Text),
    synonyms: t.Optional(Synonyms),
    primary_key: t.Optional(t.Boolean()),
    public: t.Optional(t.Boolean()),
  },
  { additionalProperties: false },
)
export type DimensionFile = Static<typeof DimensionFile>

export const JoinFile = t.Object(
  {
    name: Name,
    relationship: t.Union([t.Literal('many_to_one'), t.Literal('one_to_many'), t.Literal('one_to_one')]),
    sql: Text,
    /** What the joined cube's row is to this one's, when more than its name (`manager`, `support rep`). */
    role: t.Optional(t.String({ minLength: 1, maxLength: 100 })),
    /** `true` when the join was guessed from column names, not read from a declared foreign key. */
    inferred: t.Optional(t.Boolean()),
  },
  { additionalProperties: false },
)
export type JoinFile = Static<typeof JoinFile>

export const FilterOperator = t.Union([
  t.Literal('equals'),
  t.Literal('notEquals'),
  t.Literal('in'),
  t.Literal('notIn'),
  t.Literal('gt'),
  t.Literal('gte'),
  t.Literal('lt'),
  t.Literal('lte'),
  t.Literal('contains'),
])
export type FilterOperator = Static<typeof FilterOperator>

export const PolicyFilterValue = t.Union([t.String(), t.Number(), t.Boolean()])

export const PolicyFilterFile = t.Recursive((self) =>
  t.Union([
    t.Object(
      {
        member: t.String({ minLength: 1 }),
        operator: FilterOperator,
        values: t.Array(PolicyFilterValue, { minItems: 1 }),
      },
      { additionalProperties: false },
    ),
    t.Object({ or: t.Array(self, { minItems: 1 }) }, { additionalProperties: false }),
    t.Object({ and: t.Array(self, { minItems: 1 }) }, { additionalProperties: false }),
  ]),
)
export type PolicyFilterFile = Static<typeof PolicyFilterFile>

export const MemberList = t.Union([t.Literal('*'), t.Array(t.String({ minLength: 1 }))])

export const PolicyFile = t.Object(
  {
    group: t.Optional(t.String({ minLength: 1 })),
    groups: t.Optional(t.Array(t.String({ minLength: 1 }), { minItems: 1 })),
    conditions: t.Optional(t.Array(t.Object({ if: t.String({ minLength: 1 }) }, { additionalProperties: false }))),
    row_level: t.Optional(
      t.Object(
        { filters: t.Optional(t.Array(PolicyFilterFile)), allow_all: t.Optional(t.Boolean()) },
        { additionalProperties: false },
      ),
    ),
    member_level: t.Optional(
      t.Object({ includes: t.Optional(MemberList), excludes: t.Optional(MemberList) }, { additionalProperties: false }),
    ),
  },
  { additionalProperties: false },
)
export type PolicyFile = Static<typeof PolicyFile>

export const CubeFile = t.Object(
  {
    name: Name,
    /** A cube of the same name in the default branch (for branch files) or another cube, whose members it inherits. */
    extends: t.Optional(Name),
    sql_table: t.Optional(t.String({ minLength: 1, maxLength: 300 })),
    sql: t.Optional(Text),
    title: t.Optional(Text),
    description: t.Optional(Text),
    synonyms: t.Optional(Synonyms),
    /** The dimension that names a row (`name`, `full_name`): what a row is shown by when grouped by its key. */
    label: t.Optional(Name),
    /** The cube whose rows this one reads again in a role (`manager` of `employee`): not counted as its own rows. */
    role_of: t.Optional(Name),
    public: t.Optional(t.Boolean()),
    measures: t.Optional(t.Array(MeasureFile)),
    dimensions: t.Optional(t.Array(DimensionFile)),
    joins: t.Optional(t.Array(JoinFile)),
    access_policy: t.Optional(t.Array(PolicyFile)),
  },
  { additionalProperties: false },
)
export type CubeFile = Static<typeof CubeFile>

export const ViewCubeFile = t.Object(
  {
    /** `orders` or `orders.customers`: the cube is the last step; every step must be a declared join. */
    join_path: t.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)*$' }),
    includes: t.Optional(MemberList),
    excludes: t.Optional(t.Array(t.String({ minLength: 1 }))),
    /** Prefix member names with the cube name (`customers_region`), to keep names unique in the view. */
    prefix: t.Optional(t.Boolean()),
  },
  { additionalProperties: false },
)

export const ViewFile = t.Object(
  {
    name: Name,
    title: t.Optional(Text),
    description: t.Optional(Text),
    public: t.Optional(t.Boolean()),
    cubes: t.Array(ViewCubeFile, { minItems: 1 }),
  },
  { additionalProperties: false },
)
export type ViewFile = Static<typeof ViewFile>

export const ModelFile = t.Object(
  { cubes: t.Optional(t.Array(CubeFile)), views: t.Optional(t.Array(ViewFile)) },
  { additionalProperties: false },
)
export type ModelFile = Static<typeof ModelFile>
