import { Value } from '@sinclair/typebox/value'
import { readFileSync } from 'node:fs'
import { extname } from 'node:path'
import { parse as parseYaml } from 'yaml'
import { normalizeIdentity } from '../../plugins/auth/normalize-identity'
import { defaultValueProblem } from '../../plugins/embed/attribute-values'
import { schemaErrors } from '../../lib/schema-errors'
import { BootstrapFile } from './model'

export class BootstrapError extends Error {
  constructor(
    readonly source: string,
    readonly problems: string[],
  ) {
    super(`Invalid bootstrap file ${source}:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`)
    this.name = 'BootstrapError'
  }
}

/** Parses YAML or JSON text (JSON is YAML, but `.json` files get JSON's stricter parser and its messages). */
export function parseBootstrapText(text: string, source: string): unknown {
  try {
    return extname(source).toLowerCase() === '.json' ? JSON.parse(text) : parseYaml(text, { prettyErrors: true })
  } catch (error) {
    throw new BootstrapError(source, [`cannot parse: ${(error as Error).message.split('\n')[0]}`])
  }
}

/**
 * Checks a parsed bootstrap document: the schema first, then the rules that span entries (unique names and ids,
 * key scopes naming the account's own deployments). Every problem names its path.
 */
export function validateBootstrap(document: unknown, source: string): BootstrapFile {
  const shapeProblems = schemaErrors(BootstrapFile, document, '', 20)
  if (shapeProblems.length > 0 || !Value.Check(BootstrapFile, document)) throw new BootstrapError(source, shapeProblems)
  const file = document as BootstrapFile
  const problems: string[] = []
  const duplicates = <T>(
    items: readonly T[],
    key: (item: T) => string | number,
    path: (index: number) => string,
    what: string,
    secret = false,
  ) => {
    const seen = new Map<string | number, number>()
    items.forEach((item, index) => {
      const value = key(item)
      const first = seen.get(value)
      // A secret is not repeated in the message: it would end up in logs.
      const shown = secret ? '' : ` ${JSON.stringify(value)}`
      if (first !== undefined) problems.push(`${path(index)}: duplicate ${what}${shown} (also at ${path(first)})`)
      else seen.set(value, index)
    })
  }
  duplicates(
    file.accounts,
    (account) => account.name,
    (index) => `accounts[${index}].name`,
    'account name',
  )
  const allDeployments = file.accounts.flatMap((account, accountIndex) =>
    (account.deployments ?? []).map((deployment, index) => ({
      deployment,
      path: `accounts[${accountIndex}].deployments[${index}]`,
    })),
  )
  duplicates(
    allDeployments,
    (entry) => entry.deployment.id,
    (index) => `${allDeployments[index].path}.id`,
    'deployment id',
  )
  const allAgents = allDeployments.flatMap(({ deployment, path }) =>
    (deployment.agents ?? []).map((agent, index) => ({ agent, path: `${path}.agents[${index}]` })),
  )
  duplicates(
    allAgents,
    (entry) => entry.agent.id,
    (index) => `${allAgents[index].path}.id`,
    'agent id',
  )
  // A key's secret names its account: the same secret in two accounts (or twice in one) would be one key.
  const allKeys = file.accounts.flatMap((account, accountIndex) =>
    (account.apiKeys ?? []).map((key, index) => ({ key, path: `accounts[${accountIndex}].apiKeys[${index}].key` })),
  )
  duplicates(
    allKeys,
    (entry) => entry.key.key,
    (index) => allKeys[index].path,
    'key',
    true,
  )

  file.accounts.forEach((account, accountIndex) => {
    const at = `accounts[${accountIndex}]`
    const ownDeployments = new Set((account.deployments ?? []).map((deployment) => deployment.id))
    duplicates(
      account.apiKeys ?? [],
      (key) => key.name,
      (index) => `${at}.apiKeys[${index}].name`,
      'key name',
    )
    ;(account.apiKeys ?? []).forEach((key, index) => {
      for (const id of key.deployments ?? [])
        if (!ownDeployments.has(id))
          problems.push(
            `${at}.apiKeys[${index}].deployments: deployment ${id} is not a deployment of account ${account.name}`,
          )
    })
    duplicates(
      account.users ?? [],
      (user) => normalizeIdentity(user.username),
      (index) => `${at}.users[${index}].username`,
      'username',
    )
    duplicates(
      account.groups ?? [],
      (group) => group.name,
      (index) => `${at}.groups[${index}].name`,
      'group name',
    )
    duplicates(
      account.userAttributes ?? [],
      (attribute) => attribute.name,
      (index) => `${at}.userAttributes[${index}].name`,
      'attribute name',
    )
    ;(account.userAttributes ?? []).forEach((attribute, index) => {
      const problem =
        attribute.defaultValue === undefined ? undefined : defaultValueProblem(attribute.type, attribute.defaultValue)
      if (problem) problems.push(`${at}.userAttributes[${index}].defaultValue: ${problem}`)
    })
    duplicates(
      account.embedTenants ?? [],
      (tenant) => tenant.name,
      (index) => `${at}.embedTenants[${index}].name`,
      'embed tenant name',
    )
    ;(account.deployments ?? []).forEach((deployment, index) => {
      const path = `${at}.deployments[${index}]`
      if (deployment.branches)
        duplicates(
          deployment.branches,
          (branch) => branch,
          (position) => `${path}.branches[${position}]`,
          'branch',
        )
      if (deployment.tokenAuth?.enabled && !deployment.tokenAuth.secret)
        problems.push(`${path}.tokenAuth.secret: required when tokenAuth.enabled is true`)
    })
  })
  if (problems.length > 0) throw new BootstrapError(source, problems)
  return file
}

/** Reads, parses and validates a bootstrap file. */
export function loadBootstrapFile(path: string): BootstrapFile {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    throw new BootstrapError(path, [`cannot read: ${(error as Error).message}`])
  }
  return validateBootstrap(parseBootstrapText(text, path), path)
}
