import { and, eq, inArray, sql, type SQL } from 'drizzle-orm'
import { transaction } from '../../db/client'
import { dashboards, embedTenants, notifications, users } from '../../db/schema'
import { BadRequestError, NotFoundError } from '../../lib/errors'
import { normalizeIdentity } from '../auth/normalize-identity'
import { requireAction } from './access-control'
import { isoTime, type ManagementContext } from './context'
import type {
  CreateNotificationInput,
  DashboardFilter,
  DashboardTimeGrain,
  Notification,
  NotificationRecipient,
  NotificationsListQuery,
  NotificationsListResponse,
  UpdateNotificationInput,
} from './model'
import { byCreation, listPage } from './pagination'

type NotificationRow = typeof notifications.$inferSelect

/**
 * Scheduled dashboard notifications. They are stored and listed; this service sends no deliveries (the
 * specification shows none), so `schedule` records the intent for whatever delivers them.
 */
function toNotifications(context: ManagementContext, rows: NotificationRow[]): Notification[] {
  if (rows.length === 0) return []
  const publicIds = new Map(
    context.storage.db
      .select({ id: dashboards.id, publicId: dashboards.publicId })
      .from(dashboards)
      .where(inArray(dashboards.id, [...new Set(rows.map((row) => row.dashboardId))]))
      .all()
      .map((board) => [board.id, board.publicId] as const),
  )
  return rows.map((row) => ({
    id: row.id,
    deploymentId: row.deploymentId,
    dashboardId: row.dashboardId,
    dashboardPublicId: publicIds.get(row.dashboardId) ?? null,
    name: row.name,
    schedule: { frequency: row.frequency, timeOfDay: row.timeOfDay },
    enabled: row.enabled,
    recipients: row.recipients as NotificationRecipient[],
    filters: row.filters as DashboardFilter[],
    timeGrains: row.timeGrains as DashboardTimeGrain[],
    createdAt: isoTime(row.createdAt),
    updatedAt: isoTime(row.updatedAt),
  }))
}

function requireNotification(context: ManagementContext, id: number): NotificationRow {
  const row = context.storage.db
    .select()
    .from(notifications)
    .where(and(eq(notifications.id, id), eq(notifications.deploymentId, context.deploymentId)))
    .get()
  if (!row) throw new NotFoundError(`Notification ${id} not found`, 'NOTIFICATION_NOT_FOUND')
  return row
}

/** The dashboard a creation names: exactly one of the numeric id and the public id of a published dashboard. */
function resolveDashboard(context: ManagementContext, input: CreateNotificationInput): number {
  if ((input.dashboardId === undefined) === (input.dashboardPublicId === undefined))
    throw new BadRequestError('Send exactly one of dashboardId and dashboardPublicId', 'DASHBOARD_REFERENCE')
  const { db } = context.storage
  const inDeployment = eq(dashboards.deploymentId, context.deploymentId)
  if (input.dashboardId !== undefined) {
    const board = db
      .select({ id: dashboards.id })
      .from(dashboards)
      .where(and(inDeployment, eq(dashboards.id, input.dashboardId)))
      .get()
    if (!board)
      throw new BadRequestError(
        `dashboardId: dashboard ${input.dashboardId} does not exist in this deployment`,
        'UNKNOWN_DASHBOARD',
      )
    return board.id
  }
  const board = db
    .select({ id: dashboards.id })
    .from(dashboards)
    .where(and(inDeployment, eq(dashboards.publicId, input.dashboardPublicId!), eq(dashboards.published, true)))
    .get()
  if (!board)
    throw new BadRequestError(
      `dashboardPublicId: no published dashboard "${input.dashboardPublicId}" in this deployment`,
      'UNKNOWN_DASHBOARD',
    )
  return board.id
}

/** Checks recipients against the account (console users and embed tenants must exist) and normalizes ids. */
function checkRecipients(context: ManagementContext, recipients: NotificationRecipient[]): NotificationRecipient[] {
  const { db } = context.storage
  return recipients.map((recipient, index) => {
    const at = `recipients[${index}]`
    if (recipient.kind === 'user') {
      if (recipient.userId === undefined && recipient.email === undefined)
        throw new BadRequestError(`${at}: a console recipient needs userId or email`, 'INVALID_RECIPIENT')
      if (recipient.userId !== undefined) {
        const user = db
          .select({ id: users.id })
          .from(users)
          .where(
            and(
              eq(users.id, recipient.userId),
              eq(users.accountId, context.actor.accountId),
              eq(users.kind, 'internal'),
            ),
          )
          .get()
        if (!user)
          throw new BadRequestError(
            `${at}.userId: user ${recipient.userId} is not a console user of this account`,
            'UNKNOWN_USER',
          )
      }
      return recipient.email === undefined ? recipient : { ...recipient, email: normalizeIdentity(recipient.email) }
    }
    const tenant = db
      .select({ id: embedTenants.id })
      .from(embedTenants)
      .where(and(eq(embedTenants.accountId, context.actor.accountId), eq(embedTenants.name, recipient.embedTenantName)))
      .get()
    if (!tenant)
      throw new BadRequestError(
        `${at}.embedTenantName: embed tenant "${recipient.embedTenantName}" does not exist`,
        'UNKNOWN_EMBED_TENANT',
      )
    return { ...recipient, externalId: normalizeIdentity(recipient.externalId) }
  })
}

export function getNotification(context: ManagementContext, id: number): Notification {
  requireAction(context.actor, 'ContentRead')
  return toNotifications(context, [requireNotification(context, id)])[0]
}

/** A recipient filter over the JSON recipients column. */
function recipientMatches(condition: SQL): SQL {
  return sql`EXISTS (SELECT 1 FROM json_each(${notifications.recipients}) AS recipient WHERE ${condition})`
}

/**
 * Notifications, oldest first, cursor-paginated. Recipient filters: `recipientUserId` or `recipientEmail` for
 * console users; `recipientEmbedTenantName` with `recipientExternalId` (both or neither) for embed users.
 */
export function listNotifications(
  context: ManagementContext,
  query: NotificationsListQuery,
): NotificationsListResponse {
  requireAction(context.actor, 'ContentRead')
  if ((query.recipientEmbedTenantName === undefined) !== (query.recipientExternalId === undefined))
    throw new BadRequestError(
      'recipientEmbedTenantName and recipientExternalId go together: send both or neither',
      'EMBED_RECIPIENT_FILTER',
    )
  const field = (name: string) => sql.raw(`json_extract(recipient.value, '$.${name}')`)
  const filters: (SQL | undefined)[] = [eq(notifications.deploymentId, context.deploymentId)]
  if (query.dashboardPublicId !== undefined)
    filters.push(
      inArray(
        notifications.dashboardId,
        context.storage.db
          .select({ id: dashboards.id })
          .from(dashboards)
          .where(eq(dashboards.publicId, query.dashboardPublicId)),
      ),
    )
  if (query.recipientUserId !== undefined)
    filters.push(recipientMatches(sql`${field('kind')} = 'user' AND ${field('userId')} = ${query.recipientUserId}`))
  if (query.recipientEmail !== undefined)
    filters.push(
      recipientMatches(
        sql`${field('kind')} = 'user' AND ${field('email')} = ${normalizeIdentity(query.recipientEmail)}`,
      ),
    )
  if (query.recipientEmbedTenantName !== undefined && query.recipientExternalId !== undefined)
    filters.push(
      recipientMatches(
        sql`${field('kind')} = 'embedUser' AND ${field('embedTenantName')} = ${query.recipientEmbedTenantName} AND ${field('externalId')} = ${normalizeIdentity(query.recipientExternalId)}`,
      ),
    )
  const page = listPage(context.storage.db, {
    table: notifications,
    where: filters,
    sorts: byCreation<NotificationRow>(notifications.createdAt),
    sortBy: 'createdAt',
    query,
  })
  return { items: toNotifications(context, page.rows), pageInfo: page.pageInfo }
}

export function createNotification(context: ManagementContext, input: CreateNotificationInput): Notification {
  requireAction(context.actor, 'NotificationsManage')
  return transaction(context.storage, () => {
    const dashboardId = resolveDashboard(context, input)
    const row = context.storage.db
      .insert(notifications)
      .values({
        deploymentId: context.deploymentId,
        dashboardId,
        name: input.name,
        frequency: input.schedule.frequency,
        timeOfDay: input.schedule.timeOfDay ?? null,
        enabled: input.enabled ?? true,
        recipients: checkRecipients(context, input.recipients),
        filters: input.filters ?? [],
        timeGrains: input.timeGrains ?? [],
        createdByKeyId: context.actor.keyId,
        createdAt: context.now,
        updatedAt: context.now,
      })
      .returning()
      .get()
    return toNotifications(context, [row])[0]
  })
}

export function updateNotification(
  context: ManagementContext,
  id: number,
  input: UpdateNotificationInput,
): Notification {
  requireAction(context.actor, 'NotificationsManage')
  return transaction(context.storage, () => {
    requireNotification(context, id)
    const row = context.storage.db
      .update(notifications)
      .set({
        name: input.name,
        frequency: input.schedule?.frequency,
        timeOfDay: input.schedule ? (input.schedule.timeOfDay ?? null) : undefined,
        enabled: input.enabled,
        recipients: input.recipients ? checkRecipients(context, input.recipients) : undefined,
        filters: input.filters,
        timeGrains: input.timeGrains,
        updatedAt: context.now,
      })
      .where(eq(notifications.id, id))
      .returning()
      .get()
    return toNotifications(context, [row])[0]
  })
}

export function deleteNotification(context: ManagementContext, id: number): void {
  requireAction(context.actor, 'NotificationsManage')
  requireNotification(context, id)
  context.storage.db.delete(notifications).where(eq(notifications.id, id)).run()
}
