import { resolve } from 'node:path'
import {
  DEFAULT_MAX_CONNECTIONS,
  DEFAULT_QUERY_TIMEOUT_MS,
  type DataSourceConfig,
} from '../../plugins/semantic/sources/data-source'
import { BootstrapError } from './load'
import type { BootstrapDataSource, BootstrapFile } from './model'

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g
const SCHEMES: Partial<Record<DataSourceConfig['type'], RegExp>> = {
  postgres: /^postgres(ql)?:\/\/./i,
  mysql: /^(mysql|mariadb):\/\/./i,
}

/** `${NAME}` references replaced from the environment; a missing variable is a problem at `path`. */
function substitute(text: string, env: Record<string, string | undefined>, path: string, problems: string[]): string {
  return text.replace(REFERENCE, (_, name: string) => {
    const value = env[name]
    if (value === undefined || value === '') problems.push(`${path}: environment variable ${name} is not set`)
    return value ?? ''
  })
}

function resolveOne(
  entry: BootstrapDataSource,
  env: Record<string, string | undefined>,
  path: string,
  problems: string[],
): DataSourceConfig {
  const before = problems.length
  const url = entry.url === undefined ? undefined : substitute(entry.url, env, `${path}.url`, problems)
  const file = entry.path === undefined ? undefined : substitute(entry.path, env, `${path}.path`, problems)
  const scheme = SCHEMES[entry.type]
  let invalid: string | undefined
  if (scheme) {
    if (file !== undefined) problems.push(`${path}.path: a ${entry.type} source takes a url, not a path`)
    if (url === undefined) problems.push(`${path}.url: required for a ${entry.type} source`)
    // A URL no client can be made of stops one deployment, not the start (as a setting its driver refuses does):
    // every other account goes on. Never echo the value: it may hold a password.
    else if (problems.length === before && !scheme.test(url))
      invalid = `expected a ${entry.type === 'postgres' ? 'postgres://' : 'mysql://'} URL`
    else if (problems.length === before && !URL.canParse(url.replace(/^\w+:/, 'http:'))) invalid = 'not a valid URL'
  } else {
    if (url !== undefined)
      problems.push(`${path}.url: a ${entry.type} source takes a path to its database file, not a url`)
    if (file === undefined) problems.push(`${path}.path: required for a ${entry.type} source`)
  }
  return {
    type: entry.type,
    url: url?.replace(/^postgresql:/i, 'postgres:').replace(/^mariadb:/i, 'mysql:'),
    path: file === undefined ? undefined : resolve(file),
    schema: entry.schema,
    maxConnections: entry.maxConnections ?? DEFAULT_MAX_CONNECTIONS,
    queryTimeoutMs: entry.queryTimeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS,
    ...(invalid === undefined ? {} : { invalid }),
  }
}

/**
 * The data sources a bootstrap file names, by deployment id, with `${NAME}` read from the environment. They are
 * kept in memory only (never stored: a resolved URL may hold a password). A malformed entry stops the start with
 * its path: `accounts[0].deployments[0].dataSource.url: environment variable SHOP_DATABASE_URL is not set`. A URL
 * that is there but unusable (another kind's, or one that does not parse) is the source's `invalid` reason instead.
 */
export function resolveDataSources(
  file: BootstrapFile,
  env: Record<string, string | undefined>,
  source: string,
): Map<number, DataSourceConfig> {
  const { sources, problems } = readDataSources(file, env)
  if (problems.length > 0) throw new BootstrapError(source, problems)
  return sources
}

/**
 * The data sources of the entries that resolve, and the problems of those that do not, so `check-config` can check
 * the ones that resolve further in the same run as it names the others.
 */
export function readDataSources(
  file: BootstrapFile,
  env: Record<string, string | undefined>,
): { sources: Map<number, DataSourceConfig>; problems: string[] } {
  const problems: string[] = []
  const sources = new Map<number, DataSourceConfig>()
  file.accounts.forEach((account, accountIndex) =>
    (account.deployments ?? []).forEach((deployment, index) => {
      if (!deployment.dataSource) return
      const before = problems.length
      const config = resolveOne(
        deployment.dataSource,
        env,
        `accounts[${accountIndex}].deployments[${index}].dataSource`,
        problems,
      )
      if (problems.length === before) sources.set(deployment.id, config)
    }),
  )
  return { sources, problems }
}
