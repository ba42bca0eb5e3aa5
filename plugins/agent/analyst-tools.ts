import { jsonSchema, tool } from 'ai'
import { ServiceMetaInput, ServiceSqlApiInput } from '../semantic/model'
import { searchMeta } from './meta-search'
import type { AnalystTools } from './tool-calls'
import { TOOL_DESCRIPTIONS } from './system-prompt'

export type { AnalystTools } from './tool-calls'

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
