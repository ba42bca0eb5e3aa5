import { and, eq } from 'drizzle-orm'
import { existsSync } from 'node:fs'
import { first, type Storage } from '../../db/client'
import { openStorage } from '../../db/sqlite/sqlite-storage'
import { loadConfig } from '../../lib/config'
import { isUniqueViolation } from '../../db/unique-violation'
import { hashSecret, randomToken } from '../../lib/secrets'
import { withNamedFile } from '../startup-error'
import { requiredString, UsageError, type CliCommand } from './command'

export interface NewApiKey {
  account: string
  name: string
  admin: boolean
  /** Omitted: every deployment of the account. */
  deployments?: number[]
}

/** Why a key cannot be created (an unknown account, a taken name): shown as it is, exit code 1. */
export class KeyCreationError extends Error {}

/**
 * Creates an API key and returns the secret, which exists only in this return value: the database keeps its
 * SHA-256 hash and an 8-character prefix to recognise it by, as for keys of the bootstrap file.
 */
export async function createApiKey(storage: Storage, request: NewApiKey, now = Date.now()): Promise<string> {
  const { db } = storage
  const { accounts, apiKeys, deployments } = storage.tables
  const account = await first(db.select({ id: accounts.id }).from(accounts).where(eq(accounts.name, request.account)))
  if (!account) {
    const names = (await db.select({ name: accounts.name }).from(accounts).orderBy(accounts.name)).map(
      (row) => row.name,
    )
    throw new KeyCreationError(
      `No account named ${JSON.stringify(request.account)}${names.length ? ` (accounts: ${names.join(', ')})` : ' (the database has no account yet: start the server once, or apply a bootstrap file)'}`,
    )
  }
  const taken = await first(
    db
      .select({ id: apiKeys.id })
      .from(apiKeys)
      .where(and(eq(apiKeys.accountId, account.id), eq(apiKeys.name, request.name))),
  )
  if (taken)
    throw new KeyCreationError(
      `Account ${request.account} already has a key named ${JSON.stringify(request.name)}; choose another --name`,
    )
  if (request.deployments) {
    const own = new Set(
      (await db.select({ id: deployments.id }).from(deployments).where(eq(deployments.accountId, account.id))).map(
        (row) => row.id,
      ),
    )
    const foreign = request.deployments.filter((id) => !own.has(id))
    if (foreign.length > 0)
      throw new KeyCreationError(`Deployment(s) ${foreign.join(', ')} do not belong to account ${request.account}`)
  }
  const key = `ak_${randomToken(24)}`
  try {
    await storage.transaction((tx) =>
      tx.insert(apiKeys).values({
        accountId: account.id,
        name: request.name,
        keyHash: hashSecret(key),
        keyPrefix: key.slice(0, 8),
        admin: request.admin,
        deploymentScope: request.deployments ?? null,
        createdAt: now,
        revokedAt: null,
      }),
    )
  } catch (error) {
    // Another node or command took the name between the check and the insert.
    if (isUniqueViolation(error))
      throw new KeyCreationError(
        `Account ${request.account} already has a key named ${JSON.stringify(request.name)}; choose another --name`,
      )
    throw error
  }
  return key
}

function deploymentList(raw: string): number[] {
  const ids = raw.split(',').map((part) => part.trim())
  if (ids.some((id) => !/^[1-9]\d{0,15}$/.test(id)))
    throw new UsageError(`--deployments: expected ids like 1,2, got ${JSON.stringify(raw)}`)
  return [...new Set(ids.map(Number))]
}

/** `service keys create`: a new key for an account, printed once (also how a lost demo key is replaced). */
export const keysCreateCommand: CliCommand = {
  name: 'keys create',
  summary: 'Create an API key for an account and print it once (only its hash is stored).',
  usage: 'service keys create --account NAME [--admin] [--deployments 1,2] [--name NAME] [--db PATH]',
  details: [
    'Options:',
    '  --account NAME       the account the key belongs to (required)',
    '  --admin              an admin key (generate-session, embed tenants, settings)',
    '  --deployments 1,2    limit the key to these deployments (default: all of the account)',
    '  --name NAME          a name to recognise the key by (default: cli-<date and time>)',
    '  --db PATH            the SQLite database (default: DATABASE_URL when set, else DB_PATH, else',
    '                       ./data/service.db)',
  ].join('\n'),
  options: {
    account: { type: 'string' },
    admin: { type: 'boolean' },
    deployments: { type: 'string' },
    name: { type: 'string' },
    db: { type: 'string' },
  },
  async run(args, io) {
    const account = requiredString(args, 'account')
    const name =
      typeof args.values.name === 'string'
        ? args.values.name.trim()
        : // The time says when; the random tail keeps two keys made in the same second (a script's loop, two
          // operators) from taking one name.
          `cli-${new Date().toISOString().slice(0, 19).replace(/[-:]/g, '').replace('T', '-')}-${randomToken(6).slice(0, 6)}`
    if (name === '' || name.length > 100) throw new UsageError('--name: expected 1 to 100 characters')
    const scope = typeof args.values.deployments === 'string' ? deploymentList(args.values.deployments) : undefined
    const storage = await openNamedStorage(typeof args.values.db === 'string' ? args.values.db : undefined, io.env)
    try {
      const key = await createApiKey(storage, { account, name, admin: args.values.admin === true, deployments: scope })
      io.out(
        `Created ${args.values.admin === true ? 'admin ' : ''}API key ${JSON.stringify(name)} for account ${account}` +
          `${scope ? ` (deployments ${scope.join(', ')})` : ''}.\n` +
          `Shown once, stored only as a hash:\n\n  ${key}\n\nUse it as: Authorization: Api-Key ${key}\n`,
      )
      return 0
    } finally {
      await storage.close()
    }
  },
}

/** `--db PATH` when given, else the service's own storage: Postgres with `DATABASE_URL`, else `DB_PATH`. */
async function openNamedStorage(db: string | undefined, env: Record<string, string | undefined>): Promise<Storage> {
  const config = loadConfig(env)
  if (db === undefined && config.databaseUrl) {
    const { openPostgresStorage } = await import('../../db/postgres/postgres-storage')
    return openPostgresStorage(config.databaseUrl, { poolSize: 1 })
  }
  const path = db ?? config.dbPath
  const setting = db !== undefined ? '--db' : 'DB_PATH'
  if (path === ':memory:')
    throw new UsageError('DB_PATH is :memory:: a key there would vanish with this command; name a database file')
  // A key belongs to an account of an existing database: opening a missing file would create an empty database (and
  // its folder) only to find no account in it, and leave it behind.
  if (!existsSync(path))
    throw new KeyCreationError(
      `No database at ${path} (${setting}${db === undefined && !env.DB_PATH ? ', the default' : ''}): start the server once to create it, or name the database with --db or DB_PATH`,
    )
  return withNamedFile(setting, path, () => openStorage(path))
}
