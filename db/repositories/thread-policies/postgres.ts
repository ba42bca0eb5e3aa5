import { eq, sql } from 'drizzle-orm'
import { preparedOnce } from '../../prepared'
import type { Db, Tables } from '../../query-builder'
import type { ThreadPoliciesReader } from '.'

/** A drizzle query prepared once rather than built and compiled per request. */
export function postgresThreadPolicies(db: Db, { aiEngineerSettings }: Tables): ThreadPoliciesReader {
  const settingsOf = preparedOnce(
    db
      .select({ settings: aiEngineerSettings.settings })
      .from(aiEngineerSettings)
      .where(eq(aiEngineerSettings.deploymentId, sql.placeholder('deploymentId')))
      .limit(1)
      .prepare(),
  )
  return async (deploymentId) => (await settingsOf.execute({ deploymentId }))[0]?.settings.chatThreadPolicies
}
