import { SQL } from 'bun'
import { randomBytes } from 'node:crypto'
import { postgresAvailable, postgresServer } from './database-servers'

export interface ThrowawayDatabase {
  url: string
  /** Drops the database (closing its other connections first). */
  drop(): Promise<void>
}

/** An empty database of its own on the run's Postgres server, for a test that migrates or fills it. */
export async function throwawayPostgresDatabase(template?: string): Promise<ThrowawayDatabase> {
  const server = await postgresServer()
  const name = `test_${randomBytes(6).toString('hex')}`
  const admin = new URL(server.url)
  admin.pathname = '/postgres'
  const client = new SQL(admin.toString(), { max: 1 })
  try {
    await client.unsafe(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`)
  } finally {
    await client.close()
  }
  const url = new URL(server.url)
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    async drop() {
      const client = new SQL(admin.toString(), { max: 1 })
      try {
        await client.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      } finally {
        await client.close()
      }
    },
  }
}

/**
 * For a `beforeAll` with a long time limit: the run's Postgres server starts on first use (initdb and all), which
 * outlasts a single test's default limit on a slow machine.
 */
export async function postgresStarted(): Promise<void> {
  if (postgresAvailable) await postgresServer()
}

/** Time allowed for `postgresStarted`. */
export const POSTGRES_START_MS = 120_000
