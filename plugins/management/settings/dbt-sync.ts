import { and, eq, inArray } from 'drizzle-orm'
import { first } from '../../../db/client'
import type { dbtSyncJobs } from '../../../db/schema'
import { BadRequestError, ConflictError, NotFoundError } from '../../../lib/errors'
import { randomToken } from '../../../lib/secrets'
import { requireAction } from '../access/key-policies'
import { isoTime, isoTimeOrNull, writing, type ManagementContext, type WriteContext } from '../access/context'
import type { DbtSyncJob, DbtSyncResponse, StartDbtSyncInput } from '../model'

/**
 * dbt sync jobs. There is no dbt here: a job only walks through its lifecycle on the app's clock, so automations
 * can be written against the real shape. A job is `queued` for QUEUED_MS after it is created, then `running` for
 * RUNNING_MS, then `succeeded`. The transitions are computed and stored whenever jobs are read or started, so
 * they follow the clock without a timer.
 */
export const QUEUED_MS = 1_000
export const RUNNING_MS = 4_000

type JobRow = typeof dbtSyncJobs.$inferSelect

function advance(row: JobRow, now: number): JobRow {
  if (row.status === 'succeeded' || row.status === 'failed') return row
  const startsAt = row.createdAt + QUEUED_MS
  const finishesAt = startsAt + RUNNING_MS
  if (now >= finishesAt) return { ...row, status: 'succeeded', startedAt: startsAt, finishedAt: finishesAt }
  if (now >= startsAt) return { ...row, status: 'running', startedAt: startsAt }
  return row
}

/** Brings stored jobs up to the clock; returns them advanced. */
async function advanceStored(context: WriteContext, rows: JobRow[]): Promise<JobRow[]> {
  const { dbtSyncJobs } = context.storage.tables
  const advanced: JobRow[] = []
  for (const row of rows) {
    const next = advance(row, context.now)
    if (next.status !== row.status)
      await context.tx
        .update(dbtSyncJobs)
        .set({ status: next.status, startedAt: next.startedAt, finishedAt: next.finishedAt })
        .where(eq(dbtSyncJobs.id, row.id))
    advanced.push(next)
  }
  return advanced
}

function toJob(row: JobRow): DbtSyncJob {
  return {
    syncJobId: row.id,
    workflowId: row.workflowId,
    branchName: row.branchName,
    status: row.status,
    createdAt: isoTime(row.createdAt),
    startedAt: isoTimeOrNull(row.startedAt),
    finishedAt: isoTimeOrNull(row.finishedAt),
  }
}

/**
 * Starts a sync of `branchName` (default: the deployment's default branch; it must be one of `branches`). One
 * sync per branch at a time: starting another while one is queued or running is 409.
 */
export async function startDbtSync(
  context: ManagementContext,
  branches: string[],
  input: StartDbtSyncInput,
): Promise<DbtSyncResponse> {
  requireAction(context.actor, 'DbtSync')
  const branchName = input.branchName ?? branches[0]
  if (!branches.includes(branchName))
    throw new BadRequestError(
      `branchName: deployment ${context.deploymentId} has no branch "${branchName}" (branches: ${branches.join(', ')})`,
      'UNKNOWN_BRANCH',
    )
  const { dbtSyncJobs } = context.storage.tables
  return writing(context, async (context) => {
    const unfinished = await context.tx
      .select()
      .from(dbtSyncJobs)
      .where(
        and(
          eq(dbtSyncJobs.deploymentId, context.deploymentId),
          eq(dbtSyncJobs.branchName, branchName),
          inArray(dbtSyncJobs.status, ['queued', 'running']),
        ),
      )
    const active = (await advanceStored(context, unfinished)).find(
      (row) => row.status === 'queued' || row.status === 'running',
    )
    if (active)
      throw new ConflictError(
        `A dbt sync of branch "${branchName}" is already ${active.status} (syncJobId ${active.id})`,
        'DBT_SYNC_IN_PROGRESS',
      )
    const [row] = await context.tx
      .insert(dbtSyncJobs)
      .values({
        id: `dbtsync_${randomToken(12)}`,
        deploymentId: context.deploymentId,
        branchName,
        workflowId: `wf_${randomToken(12)}`,
        status: 'queued',
        requestedByKeyId: context.actor.keyId,
        createdAt: context.now,
      })
      .returning()
    return { branchName: row.branchName, syncJobId: row.id, workflowId: row.workflowId }
  })
}

export async function getDbtSyncJob(context: ManagementContext, syncJobId: string): Promise<DbtSyncJob> {
  requireAction(context.actor, 'ContentRead')
  const { dbtSyncJobs } = context.storage.tables
  const byId = and(eq(dbtSyncJobs.id, syncJobId), eq(dbtSyncJobs.deploymentId, context.deploymentId))
  const row = await first(context.db.select().from(dbtSyncJobs).where(byId))
  if (!row) throw new NotFoundError(`dbt sync job ${syncJobId} not found`, 'DBT_SYNC_JOB_NOT_FOUND')
  const next = advance(row, context.now)
  // A read writes only when the job moved on; the transaction is taken then, not on every poll.
  if (next.status === row.status) return toJob(row)
  return writing(context, async (context) => {
    const current = await first(context.tx.select().from(dbtSyncJobs).where(byId))
    return toJob((await advanceStored(context, [current ?? row]))[0])
  })
}
