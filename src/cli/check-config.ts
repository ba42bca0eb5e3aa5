import { readFileSync } from 'node:fs'
import { readDataSources, resolveDataSources } from '../bootstrap/data-sources'
import { BootstrapError, loadBootstrapFile, parseBootstrapText } from '../bootstrap/load'
import type { BootstrapFile } from '../bootstrap/model'
import { configurationProblem } from '../../plugins/semantic/sources/create-data-source'
import { checkModelFolder } from '../../plugins/semantic/semantic-model/check-folder'
import { ModelError } from '../../plugins/semantic/errors'
import { ConfigError, loadConfig } from '../../lib/config'
import { withoutPassword } from '../../db/postgres/postgres-connect'
import type { CliCommand } from './command'

/**
 * `service check-config`: the checks a start makes, without starting or touching the database: the environment,
 * the bootstrap file, its deployments' data sources (resolved from the environment as the start resolves them, with
 * the same messages, but never connected to) and the model folders they name (every branch). A problem throws
 * `ConfigError`, `BootstrapError` or `ModelError`, whose message names the variable, the path in the file, or the
 * model file, line and member. Every stage runs whatever the one before found, so one run lists every problem, and
 * the process exits 1 if there is any.
 */
export const checkConfigCommand: CliCommand = {
  name: 'check-config',
  summary: 'Validate the environment, the bootstrap file and its model folders, then exit (1 naming each problem).',
  usage: 'service check-config [--bootstrap FILE]',
  details: 'Options:\n  --bootstrap FILE  the bootstrap file to check (default: BOOTSTRAP_FILE)',
  options: { bootstrap: { type: 'string' } },
  async run({ values }, io) {
    // Every stage runs, so one run names every problem: a bad variable does not hide a broken bootstrap file, nor one
    // broken model folder another.
    const lines: string[] = []
    const problems: string[] = []
    const check = <T>(work: () => T): T | undefined => {
      try {
        return work()
      } catch (error) {
        if (!CHECK_ERRORS.some((type) => error instanceof type)) throw error
        problems.push((error as Error).message)
        return undefined
      }
    }
    const config = check(() => loadConfig(io.env))
    if (config) {
      // Named as the start would use it, never with its password.
      const database = config.databaseUrl ? withoutPassword(config.databaseUrl) : config.dbPath
      lines.push(
        `environment: ok (port ${config.port}, database ${database}, agent ${config.llm ? `llm ${config.llm.model}` : 'offline analyst'})`,
      )
    }
    const bootstrapFile =
      typeof values.bootstrap === 'string' ? values.bootstrap : (config?.bootstrapFile ?? io.env.BOOTSTRAP_FILE)
    const file = bootstrapFile ? check(() => loadBootstrapFile(bootstrapFile)) : undefined
    // The document whose model folders are checked: the file, or what can be read of one that broke its schema.
    let document: unknown = file
    if (bootstrapFile && file) {
      // The start refuses a data source it cannot resolve (an unset `${NAME}`, no url or path) before it applies
      // anything, so a file that passes here must pass there too. The entries that resolve are checked further (a
      // URL of another kind, or one the driver refuses, stops its deployment only) in the same run.
      const { sources: dataSources, problems: unresolved } = readDataSources(file, io.env)
      const deployments = file.accounts.reduce((sum, account) => sum + (account.deployments?.length ?? 0), 0)
      if (unresolved.length > 0) problems.push(new BootstrapError(bootstrapFile, unresolved).message)
      else
        lines.push(
          `bootstrap file ${bootstrapFile}: ok (${file.accounts.length} account(s), ${deployments} deployment(s))`,
        )
      for (const [id, source] of dataSources) {
        // The driver's own checks of the URL, as the server meets them when it builds the source.
        const problem = await configurationProblem(source)
        if (problem) problems.push(`${dataSourcePath(file, id)}: ${problem}`)
        // The start stops at an unresolved one, so the others are not said to be ok.
        else if (unresolved.length === 0)
          lines.push(`data source of deployment ${id}: ok (${source.type}, not connected)`)
      }
    } else if (bootstrapFile) {
      // The file broke its schema: the data sources and model folders it names are checked all the same, as far as
      // it can be read (an unset `${NAME}` is named in this run, not after the schema error is mended).
      document = readLoosely(bootstrapFile)
      check(() => {
        try {
          if (Array.isArray((document as { accounts?: unknown })?.accounts))
            resolveDataSources(document as BootstrapFile, io.env, bootstrapFile)
        } catch (error) {
          // A data source too broken to read is passed over: the schema error names it.
          if (error instanceof BootstrapError) throw error
        }
      })
    } else lines.push('bootstrap file: none (the built-in demo bootstrap applies to an empty database)')
    for (const folder of modelFoldersOf(document)) {
      const branches = check(() => checkModelFolder(folder.folder, folder.branches))
      if (branches) lines.push(`model ${folder.folder}: ok (${branches.join(', ')})`)
    }
    if (lines.length) io.out(`${lines.join('\n')}\n`)
    if (problems.length === 0) return 0
    io.err(`${problems.join('\n')}\n`)
    return 1
  },
}

/** The errors whose message names the problem (a variable, a path in the file, a model file and member). */
const CHECK_ERRORS = [ConfigError, BootstrapError, ModelError]

/** Where deployment `id`'s data source is in the file: `accounts[0].deployments[1].dataSource.url`. */
function dataSourcePath(file: BootstrapFile, id: number): string {
  for (const [accountIndex, account] of file.accounts.entries())
    for (const [index, deployment] of (account.deployments ?? []).entries())
      if (deployment.id === id) return `accounts[${accountIndex}].deployments[${index}].dataSource.url`
  return `data source of deployment ${id}`
}

/** A bootstrap file's document without its schema check; undefined when it cannot be read or parsed. */
function readLoosely(path: string): unknown {
  try {
    return parseBootstrapText(readFileSync(path, 'utf8'), path)
  } catch {
    return undefined
  }
}

/**
 * The model folders the deployments of a bootstrap document name, each with its deployment's branches; of a document
 * that broke the schema, those whose `model` and `branches` still make sense.
 */
function modelFoldersOf(document: unknown): Array<{ folder: string; branches: string[] }> {
  const list = (value: unknown): Record<string, unknown>[] =>
    Array.isArray(value) ? value.filter((item) => item !== null && typeof item === 'object') : []
  const accounts = list((document as { accounts?: unknown } | undefined)?.accounts)
  const folders: Array<{ folder: string; branches: string[] }> = []
  for (const account of accounts)
    for (const deployment of list(account.deployments)) {
      const { model, branches } = deployment
      if (typeof model !== 'string' || model === 'demo' || model === '') continue
      const names =
        Array.isArray(branches) && branches.length > 0 && branches.every((branch) => typeof branch === 'string')
          ? (branches as string[])
          : ['main']
      folders.push({ folder: model, branches: names })
    }
  return folders
}
