import { openStorage, type Storage } from '../db/client'
import { applyBootstrap, isEmptyDatabase } from '../db/bootstrap/apply'
import { demoBootstrap } from '../db/bootstrap/demo'
import { resolveDataSources } from '../db/bootstrap/data-sources'
import { loadBootstrapFile } from '../db/bootstrap/load'
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
 * Opens and migrates the database, then applies the bootstrap: the file when one is configured (at every start),
 * else the built-in demo bootstrap, only into an empty database.
 */
export function prepareStorage(config: Config, logger: Logger): Prepared {
  const storage = openStorage(config.dbPath)
  try {
    if (config.bootstrapFile) {
      const file = loadBootstrapFile(config.bootstrapFile)
      const dataSources = resolveDataSources(file, process.env, config.bootstrapFile)
      const summary = applyBootstrap(storage, file, config.bootstrapFile)
      logger.info('bootstrap applied', { file: config.bootstrapFile, ...summary })
      return { storage, demoApiKey: undefined, dataSources }
    }
    if (isEmptyDatabase(storage)) {
      const key = config.demoApiKey ?? `ak_demo_${randomToken(24)}`
      applyBootstrap(storage, demoBootstrap(key), 'built-in demo bootstrap')
      seedDemoDashboard(storage, 1, Date.now())
      logger.info('demo bootstrap applied', { account: 'demo', deploymentId: 1, agentId: 1 })
      return { storage, demoApiKey: key, dataSources: new Map() }
    }
    return { storage, demoApiKey: undefined, dataSources: new Map() }
  } catch (error) {
    storage.close()
    throw error
  }
}
