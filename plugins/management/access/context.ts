import { and, eq, sql } from 'drizzle-orm'
import { first, type Db, type Storage, type Tables } from '../../../db/client'
import type { ApiKeyCaller } from '../../auth/model'
import { actorOf, type Actor } from './key-policies'

/** What every deployment-scoped management operation works with: plain values, no request. */
export interface ManagementContext {
  storage: Storage
  /**
   * Where reads go: the storage's query builder, or the open transaction inside `writing`, so a check made before a
   * write reads through the same transaction as the write (on Postgres another connection would not see its rows).
   */
  db: Db
  /** Milliseconds since the epoch, from the app's clock. */
  now: number
  deploymentId: number
  actor: Actor
}

/** The tables whose rows belong to one deployment, named by its `deploymentId`. */
type DeploymentTable = Tables['folders' | 'reports' | 'workbooks' | 'dashboards' | 'notifications']

/**
 * Row `id` of `table` when it belongs to the context's deployment: rows of other deployments are as invisible as
 * rows that do not exist, so the caller's 404 never tells one from the other.
 */
export function rowOfDeployment<T extends DeploymentTable>(
  context: ManagementContext,
  table: T,
  id: number,
): Promise<T['$inferSelect'] | undefined> {
  // Widened to the union, whose select drizzle can type; the signature keeps each caller's own row type.
  const anyTable: DeploymentTable = table
  return first(
    context.db
      .select()
      .from(anyTable)
      .where(and(eq(anyTable.id, id), eq(anyTable.deploymentId, context.deploymentId))),
  )
}

/** A context inside a transaction: the only kind that writes, so no write happens outside one. */
export interface WriteContext extends ManagementContext {
  tx: Db
}

/**
 * Runs `work` in one transaction with a context whose reads and writes go through it, in the deployment's turn.
 * Called with a context that is already inside a transaction, it joins that one (opening a second would wait for
 * the first on SQLite forever).
 *
 * Management writes check before they write (a slug is free, a folder is empty and stays out of its own subtree,
 * no dbt sync of the branch is running, a referenced row exists, a merged setting is current). SQLite runs one
 * transaction at a time, so the checks hold; on Postgres the transactions of several nodes overlap and would each
 * pass the same check. Taking turns per deployment gives Postgres the same guarantee, at no cost that matters for
 * writes made by people and automations.
 */
export function writing<T>(context: ManagementContext, work: (context: WriteContext) => Promise<T>): Promise<T> {
  if ('tx' in context) return work(context as WriteContext)
  return context.storage.transaction(async (tx) => {
    const inside: WriteContext = { ...context, db: tx, tx }
    await takeDeploymentTurn(inside)
    return work(inside)
  })
}

/**
 * Makes the rest of the transaction wait for the other turns of the deployment. On Postgres the no-op update holds
 * the deployment's row until commit (a lock that inserts referencing the deployment do not wait for), and every
 * later statement reads what the previous turn committed; on SQLite transactions already run one at a time.
 */
async function takeDeploymentTurn(context: WriteContext): Promise<void> {
  const { deployments } = context.storage.tables
  await context.tx
    .update(deployments)
    .set({ name: sql`${deployments.name}` })
    .where(eq(deployments.id, context.deploymentId))
}

/** Stored times are Unix milliseconds; the wire carries ISO 8601. */
export function isoTime(ms: number): string {
  return new Date(ms).toISOString()
}

export function isoTimeOrNull(ms: number | null): string | null {
  return ms === null ? null : isoTime(ms)
}

/** The context of a management request: the key's actor on the deployment the route names. */
export async function managementContext(
  storage: Storage,
  now: number,
  caller: ApiKeyCaller,
  deploymentId: number,
): Promise<ManagementContext> {
  return { storage, db: storage.db, now, deploymentId, actor: await actorOf(storage, caller) }
}
