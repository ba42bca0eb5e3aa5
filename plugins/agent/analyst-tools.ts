import { jsonSchema, tool } from 'ai'
import { ServiceMetaInput, ServiceSqlApiInput } from '../semantic/model'
import { searchMeta } from './meta-search'
import { TOOL_DESCRIPTIONS } from './system-prompt'

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

/**
 * Runs a tool, turning any thrown error into an `{ error }` result. It first waits for `pause` when that returns a
 * promise (the runs have held the event loop for their share; see `AgentTurn.pause`).
 */
async function safely(run: () => Promise<unknown>, pause?: () => Promise<void> | undefined): Promise<unknown> {
  const paused = pause?.()
  if (paused) await paused
  try {
    return await run()
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) }
  }
}

/** The AI SDK tool set over `tools`, the same for the offline analyst and real models. */
export function aiTools(tools: AnalystTools, pause?: () => Promise<void> | undefined) {
  return {
    serviceMeta: tool({
      description: TOOL_DESCRIPTIONS.serviceMeta,
      inputSchema: metaSchema,
      execute: (input: ServiceMetaInput) => safely(() => searchMeta(tools, input), pause),
    }),
    serviceSqlApi: tool({
      description: TOOL_DESCRIPTIONS.serviceSqlApi,
      inputSchema: sqlSchema,
      execute: (input: ServiceSqlApiInput) => safely(() => tools.serviceSqlApi(input), pause),
    }),
  }
}

export { SYSTEM_PROMPT } from './system-prompt'
