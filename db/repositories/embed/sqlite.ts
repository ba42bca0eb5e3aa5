import type { Database, SQLQueryBindings } from 'bun:sqlite'
import type { Db } from '../../query-builder'
import type { AttributeType, EmbedCatalogStatements, EmbedSessionStatements, EmbedUserStatements } from '.'

/*
 * The embed statements on SQLite, as bun:sqlite statements with named parameters: the same SQL the drizzle queries of
 * `postgres.ts` build, without drizzle's per-execution work (each value mapped through its placeholder, each row
 * rebuilt from an array, its columns decoded one by one), which on these paths (a dozen statements per
 * generate-session, four per chat request) cost as much as the statements themselves. One connection serves every
 * transaction, so a statement ignores the executor it is asked for.
 */

type Values = Record<string, unknown>
/** The values as bun:sqlite binds them: by name, without the `$` (the storage's database is opened `strict`). */
type Bindings = Extract<SQLQueryBindings, Record<string, unknown>>

/** A statement as the repositories call it: `statement(tx).execute(values)`. */
function statement<Result>(run: (values: Values) => Result): (db: Db) => { execute(values?: Values): Result } {
  const prepared = { execute: (values: Values = {}) => run(values) }
  return () => prepared
}

/** Rows of a query. */
function rows<Row>(sqlite: Database, text: string) {
  const query = sqlite.query<Row, Bindings>(text)
  return statement((values) => query.all(values as Bindings))
}

/** A write. */
function write(sqlite: Database, text: string) {
  const query = sqlite.query<never, Bindings>(text)
  return statement((values): void => {
    query.run(values as Bindings)
  })
}

export function sqliteUserStatements(sqlite: Database): EmbedUserStatements {
  return {
    // Single-table reads with scalar subqueries: in SQLite a JOIN costs about ten times as much per execution.
    membershipNames: rows<{ name: string | null }>(
      sqlite,
      `SELECT (SELECT name FROM groups g
                WHERE g.id = m.group_id AND g.namespace = 'group' AND (g.embed_tenant_id IS NULL OR g.embed_tenant_id = $tenant)) AS name
         FROM group_memberships m WHERE m.user_id = $userId`,
    ),
    attributeValues: rows<{ name: string | null; tenant: number | null; value: string | null }>(
      sqlite,
      `SELECT (SELECT name FROM user_attribute_definitions d WHERE d.id = v.attribute_id) AS name,
              (SELECT embed_tenant_id FROM user_attribute_definitions d WHERE d.id = v.attribute_id) AS tenant, value
         FROM user_attribute_values v WHERE v.user_id = $userId`,
    ),
    attributeDefaults: rows<{ name: string; tenant: number | null; type: AttributeType; defaultValue: string }>(
      sqlite,
      `SELECT name, embed_tenant_id AS tenant, type, default_value AS defaultValue FROM user_attribute_definitions
        WHERE account_id = (SELECT account_id FROM users WHERE id = $userId) AND default_value IS NOT NULL
          AND ifnull(embed_tenant_id, 0) IN (0, $tenant)`,
    ),
    securityContextOf: rows<{ securityContext: string | null }>(
      sqlite,
      'SELECT security_context AS securityContext FROM users WHERE id = $userId',
    ),
    userByIdentity: rows<{
      id: number
      email: string | null
      displayName: string | null
      picture: string | null
      securityContext: string | null
      hasMemberships: number
      hasAttributeValues: number
      hasAttributeDefaults: number
    }>(
      sqlite,
      `SELECT id, email, display_name AS displayName, picture, security_context AS securityContext,
              EXISTS (SELECT 1 FROM group_memberships m WHERE m.user_id = users.id) AS hasMemberships,
              EXISTS (SELECT 1 FROM user_attribute_values v WHERE v.user_id = users.id) AS hasAttributeValues,
              EXISTS (SELECT 1 FROM user_attribute_definitions d
                       WHERE d.account_id = users.account_id AND d.default_value IS NOT NULL) AS hasAttributeDefaults
         FROM users WHERE account_id = $accountId AND kind = $kind AND identity = $identity`,
    ),
    externalUserRoom: rows<{ limit: number; count: number }>(
      sqlite,
      `SELECT max_external_users AS "limit",
              ifnull((SELECT count FROM external_user_counts c WHERE c.account_id = a.id), 0) AS count
         FROM accounts a WHERE a.id = $accountId`,
    ),
    insertUser: rows<{ id: number }>(
      sqlite,
      `INSERT INTO users (account_id, kind, identity, email, display_name, picture, security_context, created_at, updated_at)
       VALUES ($accountId, 'external', $identity, $email, $displayName, $picture, $securityContext, $now, $now)
       ON CONFLICT (account_id, kind, identity) DO NOTHING RETURNING id`,
    ),
    updateUser: write(
      sqlite,
      `UPDATE users SET email = $email, display_name = $displayName, picture = $picture,
              security_context = $securityContext, updated_at = $now WHERE id = $userId`,
    ),
    storedValues: rows<{ attributeId: number; value: string | null }>(
      sqlite,
      'SELECT attribute_id AS attributeId, value FROM user_attribute_values WHERE user_id = $userId',
    ),
    upsertValue: write(
      sqlite,
      `INSERT INTO user_attribute_values (user_id, attribute_id, value) VALUES ($userId, $attributeId, $value)
       ON CONFLICT (user_id, attribute_id) DO UPDATE SET value = excluded.value`,
    ),
    deleteValue: write(
      sqlite,
      'DELETE FROM user_attribute_values WHERE user_id = $userId AND attribute_id = $attributeId',
    ),
  }
}

/** Tenant-wide rows have no tenant: `ifnull(embed_tenant_id, 0)`, as the unique indexes say it, selects them with 0. */
export function sqliteCatalogStatements(sqlite: Database): EmbedCatalogStatements {
  return {
    groupByName: rows<{ id: number }>(
      sqlite,
      `SELECT id FROM groups
        WHERE account_id = $accountId AND ifnull(embed_tenant_id, 0) = $tenant AND namespace = $namespace AND name = $name`,
    ),
    attributeByName: rows<{ id: number; type: AttributeType }>(
      sqlite,
      `SELECT id, type FROM user_attribute_definitions
        WHERE account_id = $accountId AND ifnull(embed_tenant_id, 0) = $tenant AND name = $name`,
    ),
    membershipsIn: rows<{ groupId: number }>(
      sqlite,
      `SELECT m.group_id AS groupId FROM group_memberships m
        WHERE m.user_id = $userId
          AND (SELECT account_id = $accountId AND ifnull(embed_tenant_id, 0) = $tenant AND namespace = $namespace
                 FROM groups g WHERE g.id = m.group_id)`,
    ),
    insertMembership: write(
      sqlite,
      'INSERT INTO group_memberships (user_id, group_id) VALUES ($userId, $groupId) ON CONFLICT DO NOTHING',
    ),
    deleteMembership: write(sqlite, 'DELETE FROM group_memberships WHERE user_id = $userId AND group_id = $groupId'),
  }
}

/** The JSON columns are written as their JSON text and the flag as 0 or 1, as drizzle's column modes store them. */
export function sqliteSessionStatements(sqlite: Database): EmbedSessionStatements {
  const insert = sqlite.query<never, Bindings>(
    `INSERT INTO embed_sessions (public_id, secret_hash, account_id, deployment_id, user_id, embed_tenant_id, creator_mode,
                                 settings, security_context, groups, user_attributes, created_at, expires_at)
     VALUES ($publicId, $secretHash, $accountId, $deploymentId, $userId, $embedTenantId, $creatorMode,
             $settings, $securityContext, $groups, $userAttributes, $createdAt, $expiresAt)`,
  )
  return {
    insertSession: statement((values): void => {
      insert.run({
        ...(values as Bindings),
        creatorMode: values.creatorMode ? 1 : 0,
        settings: JSON.stringify(values.settings),
        securityContext: JSON.stringify(values.securityContext),
        groups: JSON.stringify(values.groups),
        userAttributes: JSON.stringify(values.userAttributes),
      })
    }),
    pruneExpired: rows<{ id: number }>(sqlite, 'DELETE FROM embed_sessions WHERE expires_at <= $now RETURNING id'),
  }
}
