import type { ServiceMetaInput, ServiceSqlApiInput } from '../semantic/model'

/**
 * The analyst's two tools, bound to one turn (its deployment, branch and the caller's access). They never throw
 * for bad input: a failure is a result holding `{ error }`, so the agent can correct itself.
 */
export interface AnalystTools {
  serviceMeta(input: ServiceMetaInput): Promise<unknown>
  serviceSqlApi(input: ServiceSqlApiInput): Promise<unknown>
}
