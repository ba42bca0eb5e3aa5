/**
 * What steers a real model (any OpenAI-compatible endpoint) to behave like the offline analyst: look the model up
 * first, query measures with MEASURE(), group people and things by their key, say what was computed, and say
 * plainly which part of a question it cannot answer instead of answering another question. One place, so the
 * prompt and the tool descriptions stay consistent.
 */
export const SYSTEM_PROMPT = `You are a careful data analyst answering questions about the user's business data.

Always work in this order:
1. Call serviceMeta first to learn the cubes, measures and dimensions this user may query; never guess member names.
   When the question names a value (a region, a city, a status, a product), call serviceMeta with searchQuery set to
   those words: its result lists the dimension values that contain them under "values", and under "dates" the first
   and latest date of each time dimension. Relative periods ("last year", "this quarter", "the last 6 months") count
   from the latest date in the data, not from today.
2. Call serviceSqlApi with Postgres-style SQL over the cubes: dimensions as cube.member, measures as
   MEASURE(cube.member); GROUP BY every selected dimension; DATE_TRUNC('month', cube.time_dimension) for time
   granularity; filters in WHERE; ORDER BY and LIMIT for top and bottom N (use the N the user asked for). A cube or
   member named by a word SQL reserves goes in double quotes ("order"."group", FROM "order").
   Group people and things by their primary key and show the name beside it (the key, then the name), so two rows
   with the same name stay two rows; where serviceMeta gives a cube a "label", that dimension is what names
   its rows. Map the user's words to members by their titles, descriptions and "synonyms" (a measure whose synonyms
   include "revenue" is what the user calls revenue; a cube's synonyms are other words for its rows).
   For growth or change between periods, query each period and report both values, the change and the change in
   percent. For a share of total or a percentage of rows matching a condition, query the part and the whole and
   divide. For ratios (an amount per person, a count per place) divide the two measures. For comparisons, show the
   compared periods or members side by side.
   If a query returns { error }, read the message, fix the query and try again.
3. Answer. Start with one bold line saying what was computed, in words a manager understands, including the period
   and filters, in the titles of the measures and dimensions you used (for example "**<measure> by <dimension>,
   <period>**"). Then a short summary of the finding and a markdown table of the numbers you used. Use only numbers
   returned by the tools. Name measures and dimensions by their titles (a time dimension with its granularity:
   "<title> (month)"), never by member names (cube.member), in the text and the table's headings alike. The page
   draws its chart from that table: for a comparison put every period side by side with
   the change, for a share the share column, for a ratio the ratio; numbers right-aligned (---:), written with the
   same decimals throughout a column. When serviceMeta lists "rowAccess" on a cube you
   queried, the user sees only some of its rows: say that the figures cover only the data they may see, so a part
   is never presented as the whole.

Never answer a different question than the one asked. If part of the question cannot be mapped to the data (a
measure or dimension the model does not have, a value that is not in the data this user may see, a calculation the
tools cannot do such as a forecast or a median), say exactly which part, say what you can answer nearest to it, and
do not show a table for the part you could not do. A filter you cannot apply must be said, never silently dropped.`

export const TOOL_DESCRIPTIONS = {
  serviceMeta:
    'Lists the cubes, measures, dimensions and joins of the semantic model that the user may query. Call it first. ' +
    'With searchQuery, keeps the matching members and adds "values" (dimension values containing the searched words, ' +
    'e.g. a region, city, status or product name, to filter on with WHERE) and "dates" (first and latest date of each ' +
    'time dimension, the anchor of relative periods).',
  serviceSqlApi:
    'Runs one semantic SQL SELECT over cubes and returns { schema, data, totalRows } (at most 100 rows) or { error }. ' +
    'Measures only as MEASURE(cube.measure); group by every selected dimension, by primary key for people and things. ' +
    'A result with "cached": { computedAt } came from the cache: say so in the answer, with that time.',
}

/** The longest description of a deployment's model the prompt holds; a larger model is listed by its cubes only. */
export const MODEL_DESCRIPTION_MAX_CHARS = 24_000

interface DescribedMember {
  name: string
  title?: string
  type?: string
  description?: string
  primaryKey?: boolean
  synonyms?: string[]
}
interface DescribedCube {
  name: string
  title?: string
  description?: string
  synonyms?: string[]
  label?: string
  roleOf?: string
  rowAccess?: string
  measures?: DescribedMember[]
  dimensions?: DescribedMember[]
  joins?: Array<{ name: string; relationship?: string; role?: string }>
}

/**
 * The system prompt of one turn: the rules, then the deployment's own model as the caller may query it (what
 * `serviceMeta` returned at the turn's start: `meta`), so the model knows the cubes and members of this deployment
 * and no other's. A model too large for the prompt is listed by its cubes, the members left to `serviceMeta`.
 */
export function systemPrompt(meta: unknown): string {
  const cubes = cubesOf(meta)
  if (!cubes)
    return `${SYSTEM_PROMPT}\n\nThe deployment's model could not be read just now: call serviceMeta to learn it.`
  if (cubes.length === 0)
    return `${SYSTEM_PROMPT}\n\nThis user may query no cubes of this deployment's model: say so, and answer no numbers.`
  const heading =
    "This deployment's model, as this user may query it (from serviceMeta; member names as queries write them):"
  const full = cubes.map(describeCube).join('\n')
  if (full.length <= MODEL_DESCRIPTION_MAX_CHARS) return `${SYSTEM_PROMPT}\n\n${heading}\n${full}`
  const short: string[] = []
  let length = 0
  for (const cube of cubes) {
    const line = `- ${cube.name}${quoted(cube.title)}${rowNote(cube)}`
    if (length + line.length + 1 > MODEL_DESCRIPTION_MAX_CHARS - 200) break
    short.push(line)
    length += line.length + 1
  }
  const more = cubes.length > short.length ? ` and ${cubes.length - short.length} more cubes` : ''
  return `${SYSTEM_PROMPT}\n\n${heading}\n${short.join('\n')}\n(Its members${more} are too many to list here: call serviceMeta with searchQuery for them.)`
}

function cubesOf(meta: unknown): DescribedCube[] | undefined {
  if (!meta || typeof meta !== 'object' || !Array.isArray((meta as { cubes?: unknown }).cubes)) return undefined
  return ((meta as { cubes: unknown[] }).cubes as DescribedCube[]).filter(
    (cube) => cube && typeof cube.name === 'string',
  )
}

const quoted = (title: string | undefined) => (title ? ` "${title}"` : '')
const also = (synonyms: string[] | undefined) => (synonyms?.length ? `also: ${synonyms.join(', ')}` : undefined)
const rowNote = (cube: DescribedCube) => (cube.rowAccess ? ` [rowAccess: ${cube.rowAccess}]` : '')

function describeMember(member: DescribedMember): string {
  const notes = [member.type, member.primaryKey ? 'key' : undefined, also(member.synonyms), member.description]
  return `${member.name}${quoted(member.title)} (${notes.filter(Boolean).join('; ')})`
}

function describeCube(cube: DescribedCube): string {
  const notes = [
    also(cube.synonyms),
    cube.label ? `rows named by ${cube.label}` : undefined,
    cube.roleOf ? `rows of ${cube.roleOf} in a role` : undefined,
    cube.description,
  ].filter(Boolean)
  const lines = [`- ${cube.name}${quoted(cube.title)}${notes.length ? ` (${notes.join('; ')})` : ''}${rowNote(cube)}`]
  if (cube.measures?.length) lines.push(`  measures: ${cube.measures.map(describeMember).join('; ')}`)
  if (cube.dimensions?.length) lines.push(`  dimensions: ${cube.dimensions.map(describeMember).join('; ')}`)
  if (cube.joins?.length)
    lines.push(
      `  joins: ${cube.joins.map((join) => `${join.name}${join.role ? ` as ${join.role}` : ''}${join.relationship ? ` (${join.relationship})` : ''}`).join(', ')}`,
    )
  return lines.join('\n')
}
