import { resolveDataSources } from '../../db/bootstrap/data-sources'
import { loadBootstrapFile } from '../../db/bootstrap/load'
import type { BootstrapFile } from '../../db/bootstrap/model'
import { readFolderModel } from '../../plugins/semantic/semantic-model/folder-model'
import { loadModel } from '../../plugins/semantic/semantic-model/model-loader'
import { loadConfig } from '../../lib/config'
import { withoutPassword } from '../../db/postgres-connect'
import type { CliCommand } from './command'

/**
 * `service check-config`: the checks a start makes, without starting or touching the database: the environment,
 * the bootstrap file, its deployments' data sources (resolved from the environment as the start resolves them, with
 * the same messages, but never connected to) and the model folders they name (every branch). A problem throws
 * `ConfigError`, `BootstrapError` or `ModelError`, whose message names the variable, the path in the file, or the
 * model file, line and member, and the process exits 1.
 */
export const checkConfigCommand: CliCommand = {
  name: 'check-config',
  summary: 'Validate the environment, the bootstrap file and its model folders, then exit (1 naming each problem).',
  usage: 'service check-config [--bootstrap FILE]',
  details: 'Options:\n  --bootstrap FILE  the bootstrap file to check (default: BOOTSTRAP_FILE)',
  options: { bootstrap: { type: 'string' } },
  async run({ values }, io) {
    const config = loadConfig(io.env)
    const bootstrapFile = typeof values.bootstrap === 'string' ? values.bootstrap : config.bootstrapFile
    // Named as the start would use it, never with its password.
    const database = config.databaseUrl ? withoutPassword(config.databaseUrl) : config.dbPath
    const lines = [
      `environment: ok (port ${config.port}, database ${database}, agent ${config.llm ? `llm ${config.llm.model}` : 'offline analyst'})`,
    ]
    if (bootstrapFile) {
      const file = loadBootstrapFile(bootstrapFile)
      // The start refuses a data source it cannot resolve (an unset `${NAME}`, a URL of another kind, no url or
      // path) before it applies anything, so a file that passes here must pass there too.
      const dataSources = resolveDataSources(file, io.env, bootstrapFile)
      const deployments = file.accounts.reduce((sum, account) => sum + (account.deployments?.length ?? 0), 0)
      lines.push(
        `bootstrap file ${bootstrapFile}: ok (${file.accounts.length} account(s), ${deployments} deployment(s))`,
      )
      for (const [id, source] of dataSources)
        lines.push(`data source of deployment ${id}: ok (${source.type}, not connected)`)
      for (const checked of checkModelFolders(file))
        lines.push(`model ${checked.folder}: ok (${checked.branches.join(', ')})`)
    } else lines.push('bootstrap file: none (the built-in demo bootstrap applies to an empty database)')
    io.out(`${lines.join('\n')}\n`)
    return 0
  },
}

/** Loads every folder model the file names, on each of its deployment's branches, as the start would. */
function checkModelFolders(file: BootstrapFile): Array<{ folder: string; branches: string[] }> {
  const checked: Array<{ folder: string; branches: string[] }> = []
  for (const account of file.accounts)
    for (const deployment of account.deployments ?? []) {
      const folder = deployment.model ?? 'demo'
      if (folder === 'demo') continue
      const branches = deployment.branches ?? ['main']
      branches.forEach((branch, index) => {
        const overlay = index === 0 ? undefined : branch
        const files = readFolderModel(folder, overlay)
        loadModel(`${folder}${overlay ? ` (branch ${overlay})` : ''}`, files.base, files.branch)
      })
      checked.push({ folder, branches })
    }
  return checked
}
