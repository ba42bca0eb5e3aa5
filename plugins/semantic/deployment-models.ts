import type { Config } from '../../lib/config'
import { BadRequestError } from '../../lib/errors'
import type { Logger } from '../../lib/logger'
import { demoDataPath, ensureDemoDataFile, type DemoDataFile } from './demo/demo-data-file'
import { DEMO_DATA_VERSION } from './demo/demo-data'
import { loadDemoModel } from './demo/demo-model'
import { ModelError, modelErrorForCaller } from './errors'
import { readFolderModel } from './semantic-model/folder-model'
import { loadModel } from './semantic-model/model-loader'
import type { SemanticModel } from './semantic-model/semantic-model'

/** What the semantic layer needs to know of a deployment (a `DeploymentInfo` fits). */
export interface DeploymentRef {
  id: number
  /** Whose deployment: sources serve accounts in turn (a `DeploymentInfo` has it; without it, the deployment's own turn). */
  accountId?: number
  model: string
  branches: string[]
  defaultBranch: string
}

export interface LoadedModel {
  /** Which model this is (built-in variant or folder and branch overlay): two deployments with the same key run the same model. */
  key: string
  model: SemanticModel
  /** The SQLite file the model reads when its deployment names no data source. */
  dataPath: string
  /**
   * Part of every result cache key: results of another data file or generation never match (a file's changes since
   * are told by its source's stamp).
   */
  dataVersion: string
}

/**
 * The models of deployment branches, loaded once per model and branch (the built-in demo model, or a model folder
 * with a branch's overlay), and the demo data file they read when their folder has no `data.db`.
 */
export function createModelLoader(options: { config: Pick<Config, 'dbPath' | 'demoDataPath'>; logger: Logger }) {
  const { logger } = options
  const models = new Map<string, LoadedModel>()
  const demoPath = demoDataPath(options.config)
  let demoFile: DemoDataFile | undefined

  function demoData(): DemoDataFile {
    if (!demoFile) {
      demoFile = ensureDemoDataFile(demoPath)
      if (demoFile.generated)
        logger.info('demo data generated', {
          path: demoFile.path,
          ms: Math.round(demoFile.milliseconds),
          bytes: demoFile.bytes,
        })
    }
    return demoFile
  }

  function branchOf(deployment: DeploymentRef, branchName: string | undefined): string {
    const branch = branchName ?? deployment.defaultBranch
    if (!deployment.branches.includes(branch))
      throw new BadRequestError(
        `Branch ${branch} not found in deployment ${deployment.id}; its branches are ${deployment.branches.join(', ')}`,
        'BRANCH_NOT_FOUND',
      )
    return branch
  }

  /**
   * The model of a deployment branch for a request; throws `ModelError` for a broken model (logged with its paths,
   * told to the caller with the files named from the model's folder), 400 for an unknown branch.
   */
  function load(deployment: DeploymentRef, branchName?: string): LoadedModel {
    try {
      return loadAtStart(deployment, branchName)
    } catch (error) {
      if (!(error instanceof ModelError) || deployment.model === 'demo') throw error
      logger.error('a deployment model could not be loaded', { deploymentId: deployment.id, error: error.message })
      throw modelErrorForCaller(error, deployment.model)
    }
  }

  /** The model of a deployment branch; throws `ModelError` naming the files' whole paths, 400 for an unknown branch. */
  function loadAtStart(deployment: DeploymentRef, branchName?: string): LoadedModel {
    const branch = branchOf(deployment, branchName)
    const overlay = branch === deployment.defaultBranch ? undefined : branch
    const key =
      deployment.model === 'demo' ? `demo:${overlay ? 'dev' : 'main'}` : `folder:${deployment.model}:${overlay ?? ''}`
    let loaded = models.get(key)
    if (!loaded) {
      if (deployment.model === 'demo') {
        loaded = {
          key,
          model: loadDemoModel(overlay ? 'dev' : 'main'),
          dataPath: demoPath,
          dataVersion: `demo-v${DEMO_DATA_VERSION}:${demoPath}`,
        }
      } else {
        const files = readFolderModel(deployment.model, overlay)
        const model = loadModel(`${deployment.model}${overlay ? ` (branch ${overlay})` : ''}`, files.base, files.branch)
        loaded = files.dataPath
          ? { key, model, dataPath: files.dataPath, dataVersion: files.dataPath }
          : { key, model, dataPath: demoPath, dataVersion: `demo-v${DEMO_DATA_VERSION}:${demoPath}` }
      }
      models.set(key, loaded)
    }
    return loaded
  }

  /** The demo data file if something has read it yet. */
  const demoFileMade = () => demoFile
  return { load, loadAtStart, demoData, demoPath, demoFileMade }
}
