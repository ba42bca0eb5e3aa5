import { asc, eq } from 'drizzle-orm'
import { first, type Storage } from '../../db/client'
import { NotFoundError } from '../../lib/errors'
import type { DeploymentInfo, Directory } from '../auth/directory'
import type { EmbedCaller } from '../auth/model'
import type { UserProvisioner } from '../auth/user-provisioner'
import { callerAccess } from '../semantic/caller-access'
import type { MetaResult } from '../semantic/model'
import type { SemanticService } from '../semantic/semantic-service'
import type { EmbedContext } from './model'
import { starterPlan, starterQuestions } from './starter-questions'
import { creatorTenantOf } from './tenant-dashboards'

/**
 * `showDashboardChat` is tri-state. A session that set it wins (`false` hides, `true` shows); a session
 * that did not follows the account-wide setting (on by default).
 */
export function effectiveShowDashboardChat(sessionSettings: Record<string, unknown>, accountSetting: boolean): boolean {
  const value = sessionSettings.showDashboardChat
  return typeof value === 'boolean' ? value : accountSetting
}

/** Only absolute http(s) URLs reach an `<img>`; anything else is treated as no picture. */
function safePicture(picture: string | null): string | null {
  if (!picture) return null
  try {
    const url = new URL(picture)
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.toString() : null
  } catch {
    return null
  }
}

/** The titles of the members an access policy filters a cube's rows on, as the meta names them. */
function policyTitles(meta: MetaResult): Set<string> {
  const titles = new Set<string>()
  for (const cube of meta.cubes) {
    const named = /\bon (.+)$/.exec(cube.rowAccess ?? '')?.[1]
    for (const title of named?.split(', ') ?? []) titles.add(title)
  }
  return titles
}

/**
 * The starters' breakdowns that the caller's row-level security pins to one value: a user locked to Europe is not
 * offered "orders by region", which would draw one bar. Only members an access policy filters on are checked, by
 * querying them as the caller, so a policy that leaves several values (a user of two regions) keeps its breakdown.
 */
async function pinnedDimensions(
  semantic: SemanticService,
  context: Parameters<SemanticService['meta']>[0],
  meta: MetaResult,
): Promise<Set<string>> {
  const pinned = new Set<string>()
  const plan = starterPlan(meta)
  const filtered = policyTitles(meta)
  if (!plan || filtered.size === 0) return pinned
  const measure = plan.measures[0]
  for (const dimension of plan.dimensions.filter((candidate) => filtered.has(candidate.title))) {
    const sql = `SELECT ${dimension.name}, MEASURE(${measure.name}) FROM ${plan.cube.name} GROUP BY 1`
    const result = await semantic.query(context, sql, 2).catch(() => undefined)
    if (result && result.data.length < 2) pinned.add(dimension.name)
  }
  return pinned
}

/**
 * Reads what an embed page needs about its session: the account (chat URLs carry its name), the deployment, the
 * agent that answers (the deployment's first, by id), the user's profile and the effective settings.
 */
export function createEmbedContextReader(
  storage: Storage,
  directory: Directory,
  semantic: SemanticService,
  userAccess: UserProvisioner,
) {
  const { db } = storage
  const { agents, users } = storage.tables
  /** A model that cannot be read leaves the chat without suggestions; the chat itself then explains the problem. */
  const starters = async (viewer: EmbedCaller, deployment: DeploymentInfo): Promise<string[]> => {
    try {
      const access = await callerAccess(viewer, undefined, userAccess)
      const meta = semantic.meta({ deployment, access })
      return starterQuestions(meta, await pinnedDimensions(semantic, { deployment, access }, meta))
    } catch {
      return []
    }
  }
  return async (viewer: EmbedCaller): Promise<EmbedContext> => {
    const deployment = await directory.deployment(viewer.deploymentId)
    const account = await directory.account(viewer.accountId)
    if (!deployment || !account)
      throw new NotFoundError(`Deployment ${viewer.deploymentId} not found`, 'DEPLOYMENT_NOT_FOUND')
    const agent = await first(
      db
        .select({ id: agents.id, name: agents.name })
        .from(agents)
        .where(eq(agents.deploymentId, deployment.id))
        .orderBy(asc(agents.id))
        .limit(1),
    )
    const profile = await first(
      db
        .select({ displayName: users.displayName, picture: users.picture })
        .from(users)
        .where(eq(users.id, viewer.userId)),
    )
    return {
      accountName: account.name,
      deployment: { id: deployment.id, name: deployment.name },
      agent: agent
        ? {
            id: agent.id,
            name: agent.name,
            chatPath: `/api/v1/public/${encodeURIComponent(account.name)}/agents/${agent.id}/chat`,
          }
        : null,
      user: { displayName: profile?.displayName ?? null, picture: safePicture(profile?.picture ?? null) },
      settings: { showDashboardChat: effectiveShowDashboardChat(viewer.settings, account.showDashboardChat) },
      expiresAt: new Date(viewer.expiresAt * 1000).toISOString(),
      creator: (await creatorTenantOf(storage, viewer)) !== undefined,
      starterQuestions: await starters(viewer, deployment),
    }
  }
}
