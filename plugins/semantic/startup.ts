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
export function prepareSemanticLayer(deps: SemanticStartupDeps): void {
  const startedAt = performance.now()
  const ids = deps.storage.sqlite.query<{ id: number }, []>('SELECT id FROM deployments ORDER BY id').all()
  const deployments: DeploymentRef[] = ids.flatMap(({ id }) => deps.directory.deployment(id) ?? [])
  const { demo, models } = deps.semantic.prepare(deployments)
  deps.logger.info('semantic layer ready', {
    models,
    demoData: demo
      ? { path: demo.path, generated: demo.generated, ms: Math.round(demo.milliseconds), bytes: demo.bytes }
      : undefined,
    ms: Math.round(performance.now() - startedAt),
  })
}
