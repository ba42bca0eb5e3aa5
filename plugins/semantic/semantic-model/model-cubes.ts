import { titleOfName, titleWords } from './model-naming'
import { type ColumnFacts, type Generation, type Plan, safeName, splitOriginal } from './model-plan'

/** A column that alone says nothing: its title takes the cube's name (`invoice.total` → "Invoice total"). */
const BARE_WORDS = new Set([
  'total',
  'amount',
  'name',
  'title',
  'date',
  'status',
  'type',
  'description',
  'value',
  'price',
  'quantity',
  'code',
  'number',
  'notes',
  'note',
  'comment',
  'comments',
  'rating',
  'length',
  'size',
  'level',
  'rank',
  'score',
  'id',
  'key',
  'cost',
  'duration',
])
const PERSON_FIRST = /^(first|given|fore)$/
const PERSON_LAST = /^(last|family|sur)$/

/** Words of a time column that say when a person's row was made: their sign-up. */
const SIGNUP_WORDS = new Set(['created', 'create', 'signup', 'registered', 'registration', 'joined', 'since'])
const PEOPLE = new Set(['customer', 'user', 'member', 'client', 'subscriber', 'account', 'patient', 'student'])

/** One cube being written: its plan, the member names it has taken, and how its columns read. */
export interface CubeDraft {
  plan: Plan
  /** The first free name of `candidates`, else the last one numbered; taken from then on. */
  unique: (...candidates: string[]) => string
  sqlOf: (column: string) => string
  columnTitle: (column: ColumnFacts) => string
  columnNamed: (test: (column: ColumnFacts) => boolean) => ColumnFacts | undefined
  foreignColumns: Set<string>
  keyColumns: Set<string>
  ownName: string
  singularTitle: string
}

export function draftOf(plan: Plan, q: (name: string) => string): CubeDraft {
  const taken = new Set<string>()
  // Compared in lower case: the query parser reads `Total` and `total` as one member.
  const free = (name: string) => !taken.has(name.toLowerCase())
  const unique = (...candidates: string[]) => {
    let found = candidates.find(free)
    for (let index = 2; found === undefined; index++)
      if (free(`${candidates.at(-1)}_${index}`)) found = `${candidates.at(-1)}_${index}`
    taken.add(found.toLowerCase())
    return found
  }
  const personal =
    plan.columns.some((column) => PERSON_FIRST.test(column.words[0] ?? '') && column.words.at(-1) === 'name') &&
    plan.columns.some((column) => PERSON_LAST.test(column.words[0] ?? '') && column.words.at(-1) === 'name')
  const columnTitle = (column: ColumnFacts): string => {
    const words = column.words
    // Beside a first and a last name, a title is a job title, not a name.
    if (words.join(' ') === 'title' && personal) return 'Job title'
    if (words.length === 1 && BARE_WORDS.has(words[0]) && words[0] !== plan.singular.at(-1))
      return titleWords([...plan.singular, ...splitOriginal(column.name)])
    return titleOfName(column.name)
  }
  const foreignColumns = new Set(plan.joins.map((join) => join.column))
  return {
    plan,
    unique,
    sqlOf: (column) => `{CUBE}.${q(column)}`,
    columnTitle,
    columnNamed: (test) => plan.columns.find(test),
    foreignColumns,
    keyColumns: new Set([...plan.primaryKey, ...foreignColumns]),
    ownName: plan.singular.join(' '),
    singularTitle: titleWords(plan.singular),
  }
}

/** Dimensions, one per column, and for a composite primary key one hidden dimension of its columns joined. */
export function dimensionsOf(generation: Generation, draft: CubeDraft): Array<Record<string, unknown>> {
  const { q, quoting } = generation
  const { plan, unique, sqlOf } = draft
  const dimensions: Array<Record<string, unknown>> = plan.columns.map((column) => {
    column.member = unique(safeName(column.name))
    const dimension: Record<string, unknown> = { name: column.member, type: column.type }
    if (column.member !== column.name || q(column.name) !== column.name) dimension.sql = sqlOf(column.name)
    // A SQLite time is the column itself: the query compiler reads any text form of a time (a date alone, `T`,
    // fractions) as its moment, and bounds the column by day so its index serves date ranges. Read through
    // datetime(), it lost the index and its fractions of a second.
    dimension.title = draft.columnTitle(column)
    if (column.comment) dimension.description = column.comment
    if (
      column.type === 'time' &&
      PEOPLE.has(plan.singular.at(-1) ?? '') &&
      column.words.some((word) => SIGNUP_WORDS.has(word))
    )
      dimension.synonyms = ['signup date', 'sign-up date', 'joined', 'registration date', 'signed up']
    if (plan.primaryKey.length === 1 && plan.primaryKey[0] === column.name) dimension.primary_key = true
    return dimension
  })

  // Composite primary key: one hidden dimension of its columns joined, so distinct counts count rows.
  if (plan.primaryKey.length > 1) {
    const parts = plan.primaryKey.map((column) => `CAST(${sqlOf(column)} AS CHAR(40))`)
    const text = parts.map((part) => (quoting === 'backquote' ? part : part.replace('CHAR(40)', 'VARCHAR(40)')))
    dimensions.push({
      name: unique('row_key', `${plan.name}_row_key`),
      type: 'string',
      sql: quoting === 'backquote' ? `CONCAT(${text.join(", '|', ")})` : text.join(" || '|' || "),
      title: `${draft.singularTitle} key`,
      description: `The primary key's columns together (${plan.primaryKey.join(', ')}).`,
      primary_key: true,
      public: false,
    })
    generation.inferred.push(`${plan.table.name}: composite primary key (${plan.primaryKey.join(', ')})`)
  }
  return dimensions
}

/**
 * The label, the column that names a row (or first and last name joined, added to `dimensions`), with the cube's
 * own name as its synonyms: "by category", "which customer" mean it.
 */
export function labelOf(
  generation: Generation,
  draft: CubeDraft,
  dimensions: Array<Record<string, unknown>>,
): string | undefined {
  const { plan, columnNamed, ownName, sqlOf } = draft
  const tableName = plan.table.name
  const first = columnNamed(
    (column) => column.type === 'string' && PERSON_FIRST.test(column.words[0] ?? '') && column.words.at(-1) === 'name',
  )
  const last = columnNamed(
    (column) => column.type === 'string' && PERSON_LAST.test(column.words[0] ?? '') && column.words.at(-1) === 'name',
  )
  const labelColumn =
    columnNamed(
      (column) => column.type === 'string' && ['name', 'full name', 'display name'].includes(column.words.join(' ')),
    ) ??
    columnNamed(
      (column) =>
        column.type === 'string' && [`${ownName} name`, `${ownName} title`, ownName].includes(column.words.join(' ')),
    ) ??
    (first && last
      ? undefined
      : (columnNamed((column) => column.type === 'string' && column.words.join(' ') === 'title') ??
        columnNamed(
          (column) =>
            column.type === 'string' && ['company name', `${ownName} description`].includes(column.words.join(' ')),
        )))
  let label: string | undefined
  if (!labelColumn && first && last) {
    label = draft.unique('full_name', `${plan.name}_full_name`)
    const parts = [sqlOf(first.name), sqlOf(last.name)]
    dimensions.push({
      name: label,
      type: 'string',
      sql:
        generation.quoting === 'backquote'
          ? `CONCAT(${parts[0]}, ' ', ${parts[1]})`
          : `${parts[0]} || ' ' || ${parts[1]}`,
      title: `${draft.singularTitle} name`,
      description: `${titleOfName(first.name)} and ${titleOfName(last.name).toLowerCase()} together.`,
      synonyms: ['name', 'full name'],
    })
    generation.inferred.push(`${tableName}: label full_name (${first.name} and ${last.name} joined)`)
  } else if (labelColumn) {
    label = labelColumn.member
    generation.inferred.push(`${tableName}: label ${labelColumn.name}`)
  } else if (plan.columns.some((column) => column.type === 'string' && !draft.keyColumns.has(column.name)))
    generation.check.push(`${tableName}: no column names a row (no name or title); rows are shown by their key`)
  const labelDimension = dimensions.find((dimension) => dimension.name === label)
  if (labelDimension) {
    const words = [plan.singular.join(' '), plan.plural.join(' ')]
    const own = (labelDimension.synonyms as string[] | undefined) ?? []
    labelDimension.synonyms = [...new Set([...words, ...own])]
  }
  return label
}
