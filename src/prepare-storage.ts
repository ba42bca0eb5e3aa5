import type { Storage } from '../db/client'
import { applyBootstrap, applyBootstrapIn, isEmptyDatabase } from './bootstrap/apply'
import { demoBootstrap } from './bootstrap/demo'
import { resolveDataSources } from './bootstrap/data-sources'
import { BootstrapError, loadBootstrapFile } from './bootstrap/load'
import { bootstrapModelProblems } from './bootstrap/model-folders'
import { openConfiguredStorage } from '../db/open-storage'
import { withNamedFile } from './startup-error'
import type { DataSourceConfig } from '../plugins/semantic/sources/data-source'
import type { Config } from '../lib/config'
import type { Logger } from '../lib/logger'
import { seedDemoDashboard } from './demo-dashboard'
import { randomToken } from '../lib/secrets'

export interface Prepared {
  storage: Storage
  /** The demo admin key when the demo bootstrap was applied now (shown once, never stored in clear). */
  demoApiKey: string | undefined
  /** The bootstrap file's data sources by deployment id, resolved from the environment (kept in memory only). */
  dataSources: Map<number, DataSourceConfig>
}

/**
 * Opens and migrates the database (the SQLite file, or Postgres when `DATABASE_URL` is set), then applies the
 * bootstrap: the file when one is configured (at every start), else the built-in demo bootstrap, only into an empty
 * database. Both run in exclusive transactions, so nodes starting together on one Postgres apply them once.
 */
export async function prepareStorage(config: Config, logger: Logger): Promise<Prepared> {
  const storage = config.databaseUrl
    ? await openConfiguredStorage(config)
    : await withNamedFile('DB_PATH', config.dbPath, () => openConfiguredStorage(config))
  try {
    if (config.bootstrapFile) {
      const file = loadBootstrapFile(config.bootstrapFile)
      const dataSources = resolveDataSources(file, process.env, config.bootstrapFile)
      const modelProblems = bootstrapModelProblems(file)
      if (modelProblems.length) throw new BootstrapError(config.bootstrapFile, modelProblems)
      const summary = await applyBootstrap(storage, file, config.bootstrapFile)
      logger.info('bootstrap applied', { file: config.bootstrapFile, ...summary })
      return { storage, demoApiKey: undefined, dataSources }
    }
    const key = config.demoApiKey ?? `ak_demo_${randomToken(24)}`
    // The emptiness check belongs in the transaction: a node that starts while another seeds finds the demo there.
    const seeded = await storage.transaction(
      async (tx) => {
        if (!(await isEmptyDatabase(tx, storage.tables))) return false
        const now = Date.now()
        await applyBootstrapIn(tx, storage.tables, demoBootstrap(key), 'built-in demo bootstrap', now)
        await seedDemoDashboard(tx, storage.tables, 1, now)
        return true
      },
      { exclusive: true },
    )
    if (!seeded) return { storage, demoApiKey: undefined, dataSources: new Map() }
    logger.info('demo bootstrap applied', { account: 'demo', deploymentId: 1, agentId: 1 })
    return { storage, demoApiKey: key, dataSources: new Map() }
  } catch (error) {
    await storage.close()
    throw error
  }
}
