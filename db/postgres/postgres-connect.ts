import { SQL } from 'bun'

/*
 * Reaching a Postgres server, apart from the storage built on it: the command line and the start-up import this
 * without the Postgres schema and its query builder, which a node on SQLite never loads.
 */

/** The Postgres server of a database URL cannot be reached or refuses the login: the operator's to fix. */
export class DatabaseUnreachableError extends Error {}

/**
 * A pool on `url` that has answered once: a server that is down, a wrong password or a missing database stop the
 * start with one line naming the database (without its password), rather than with the driver's stack.
 */
export async function connectPostgres(url: string, max: number): Promise<SQL> {
  const client = new SQL(url, { max })
  try {
    await client.unsafe('SELECT 1')
    return client
  } catch (error) {
    await client.close().catch(() => undefined)
    const { message, code } = error as { message?: string; code?: string }
    throw new DatabaseUnreachableError(
      `Cannot use the Postgres database ${withoutPassword(url)} (DATABASE_URL): ${message ?? String(error)}${code ? ` (${code})` : ''}`,
    )
  }
}

/** The URL as it may be shown: no password. */
export function withoutPassword(url: string): string {
  if (!URL.canParse(url)) return url.replace(/:[^:@/]*@/, '@')
  const parsed = new URL(url)
  parsed.password = ''
  return parsed.toString()
}
