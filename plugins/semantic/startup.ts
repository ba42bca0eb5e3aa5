import { asc } from 'drizzle-orm'
import type { Storage } from '../../db/client'
import type { Logger } from '../../lib/logger'
import type { Directory } from '../auth/directory'
import type { DeploymentRef, SemanticService } from './semantic-service'

export interface SemanticStartupDeps {
  storage: Storage
  directory: Directory
  semantic: SemanticService
  logger: Logger
}

/**
 * Run by `main` before the server listens: loads the model of every deployment branch (a broken model stops the
 * start with `ModelError`, naming file, line and member) and makes sure the demo data file exists, logging how
 * long it took.
 */
export async function prepareSemanticLayer(deps: SemanticStartupDeps): Promise<void> {
  const startedAt = performance.now()
  const { deployments: table } = deps.storage.tables
  const ids = await deps.storage.db.select({ id: table.id }).from(table).orderBy(asc(table.id))
  const deployments: DeploymentRef[] = []
  for (const { id } of ids) {
    const deployment = await deps.directory.deployment(id)
    if (deployment) deployments.push(deployment)
  }
  const { demo, models } = deps.semantic.prepare(deployments)
  deps.logger.info('semantic layer ready', {
    models,
    demoData: demo
      ? { path: demo.path, generated: demo.generated, ms: Math.round(demo.milliseconds), bytes: demo.bytes }
      : undefined,
    ms: Math.round(performance.now() - startedAt),
  })
}
