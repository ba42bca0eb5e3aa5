import { jsonSchema, tool } from 'ai'
import { ServiceMetaInput, ServiceSqlApiInput } from '../semantic/model'

/**
 * The analyst's two tools, bound to one turn (its deployment, branch and the caller's access). They never throw
 * for bad input: a failure is a result holding `{ error }`, so the agent can correct itself.
 */
export interface AnalystTools {
  serviceMeta(input: ServiceMetaInput): Promise<unknown>
  serviceSqlApi(input: ServiceSqlApiInput): Promise<unknown>
}

// The tools' input schemas are the semantic layer's TypeBox schemas, which are JSON Schema already.
const metaSchema = jsonSchema<ServiceMetaInput>(ServiceMetaInput as never)
const sqlSchema = jsonSchema<ServiceSqlApiInput>(ServiceSqlApiInput as never)

/** Runs a tool, turning any thrown error into an `{ error }` result. */
async function safely(run: () => Promise<unknown>): Promise<unknown> {
  try {
    return await run()
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) }
  }
}

/** The AI SDK tool set over `tools`, the same for the offline analyst and real models. */
export function aiTools(tools: AnalystTools) {
  return {
    serviceMeta: tool({
      description: 'Lists the cubes, measures and dimensions of the semantic model that the user may query.',
      inputSchema: metaSchema,
      execute: (input: ServiceMetaInput) => safely(() => tools.serviceMeta(input)),
    }),
    serviceSqlApi: tool({
      description:
        'Runs a semantic SQL query and returns { schema, data, totalRows } (at most 100 rows) or { error }. Use MEASURE() for measures.',
      inputSchema: sqlSchema,
      execute: (input: ServiceSqlApiInput) => safely(() => tools.serviceSqlApi(input)),
    }),
  }
}

export const SYSTEM_PROMPT = `You are a data analyst answering questions about the user's business data.
Always start by calling serviceMeta to learn the cubes, measures and dimensions you may use; never guess member names.
Then call serviceSqlApi with Postgres-style SQL over the cubes: select dimensions as cube.member and measures as
MEASURE(cube.member); group by every selected dimension; use DATE_TRUNC('month', cube.time_dimension) for time
granularity; filter with WHERE; sort with ORDER BY and limit with LIMIT. If a query returns { error }, read the
message, fix the query and try again.
Answer with a short summary of the finding followed by a markdown table of the numbers you used. Use only numbers
returned by the tools. If the model cannot answer the question, say so plainly and list what you can answer.`
