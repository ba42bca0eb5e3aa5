import { AppError } from '../../lib/errors'
import type { Logger } from '../../lib/logger'
import { ROW_CAP, type MetaResult, type ServiceMetaInput, type ServiceSqlApiInput, type SqlResult } from './model'
import type { SemanticContext, SemanticService } from './semantic-service'

/** What a tool call needs besides its input: the service, and whose data on which deployment and branch. */
export interface ToolContext extends SemanticContext {
  semantic: SemanticService
  logger?: Logger
}

export type ToolError = { error: string }

// Errors of the data source, not bugs: the agent reads them and the chat goes on (they never carry a URL).
const SOURCE_ERRORS = new Set(['QUERY_TIMEOUT', 'DATA_SOURCE_UNAVAILABLE'])

function toolError(error: unknown, context: ToolContext, tool: string): ToolError {
  if (error instanceof AppError && (error.status < 500 || SOURCE_ERRORS.has(error.code)))
    return { error: error.message }
  context.logger?.error('semantic tool failed', { tool, deploymentId: context.deployment.id, error })
  return { error: `${tool} failed unexpectedly; try again or rephrase the query` }
}

/**
 * The `serviceMeta` tool: the cubes and members the caller may see, filtered by
 * `searchQuery`. Never throws: a failure becomes `{ error }`, which the agent reads and works around.
 */
export async function serviceMeta(input: ServiceMetaInput, context: ToolContext): Promise<MetaResult | ToolError> {
  try {
    return context.semantic.meta(context, typeof input?.searchQuery === 'string' ? input.searchQuery : undefined)
  } catch (error) {
    return toolError(error, context, 'serviceMeta')
  }
}

/**
 * The `serviceSqlApi` tool: runs one SELECT over cubes for the caller and returns at most 100 rows with
 * `totalRows`, or `{ error }` with what to fix (unknown members come with the closest names). Never throws.
 * `queryTitle`, `description` and `userRequest` are for the transcript; they do not change the result.
 */
export async function serviceSqlApi(input: ServiceSqlApiInput, context: ToolContext): Promise<SqlResult | ToolError> {
  if (typeof input?.sqlQuery !== 'string' || input.sqlQuery.trim() === '')
    return { error: 'sqlQuery is required: one SELECT over cubes' }
  try {
    return await context.semantic.query(context, input.sqlQuery, ROW_CAP)
  } catch (error) {
    return toolError(error, context, 'serviceSqlApi')
  }
}

/**
 * Both tools bound to one context, in the shape the analyst agent takes (`AnalystTools`):
 * `tools: (turn) => bindSemanticTools(deps.semantic, { deployment: turn.deployment, branchName: turn.branch, access: turn.access })`.
 */
export function bindSemanticTools(semantic: SemanticService, context: SemanticContext, logger?: Logger) {
  const bound: ToolContext = { ...context, semantic, logger }
  return {
    serviceMeta: (input: ServiceMetaInput) => serviceMeta(input, bound),
    serviceSqlApi: (input: ServiceSqlApiInput) => serviceSqlApi(input, bound),
  }
}
