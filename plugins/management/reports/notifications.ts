import { and, eq, inArray, type SQL } from 'drizzle-orm'
import { first } from '../../../db/client'
import type { notifications } from '../../../db/schema'
import { BadRequestError, NotFoundError } from '../../../lib/errors'
import { normalizeIdentity } from '../../auth/normalize-identity'
import { checkExternalId } from '../../embed/identity'
import { requireAction } from '../access/key-policies'
import { isoTime, rowOfDeployment, writing, type ManagementContext } from '../access/context'
import type {
  CreateNotificationInput,
  DashboardFilter,
  DashboardTimeGrain,
  Notification,
  NotificationRecipient,
  NotificationsListQuery,
  NotificationsListResponse,
  UpdateNotificationInput,
} from '../model'
import { checkDashboardControls } from '../dashboards/controls'
import type { WidgetQueryCheck } from '../dashboards/query-check'
import { byCreation, listPage } from '../pagination'

type NotificationRow = typeof notifications.$inferSelect

/**
 * Scheduled dashboard notifications. They are stored and listed; this service sends no deliveries (the
 * specification shows none), so `schedule` records the intent for whatever delivers them.
 */
async function toNotifications(context: ManagementContext, rows: NotificationRow[]): Promise<Notification[]> {
  if (rows.length === 0) return []
  const { dashboards } = context.storage.tables
  const boards = await context.db
    .select({ id: dashboards.id, publicId: dashboards.publicId })
    .from(dashboards)
    .where(inArray(dashboards.id, [...new Set(rows.map((row) => row.dashboardId))]))
  const publicIds = new Map(boards.map((board) => [board.id, board.publicId] as const))
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

async function requireNotification(context: ManagementContext, id: number): Promise<NotificationRow> {
  const row = await rowOfDeployment(context, context.storage.tables.notifications, id)
  if (!row) throw new NotFoundError(`Notification ${id} not found`, 'NOTIFICATION_NOT_FOUND')
  return row
}

/** The dashboard a creation names: exactly one of the numeric id and the public id of a published dashboard. */
async function resolveDashboard(context: ManagementContext, input: CreateNotificationInput): Promise<number> {
  if ((input.dashboardId === undefined) === (input.dashboardPublicId === undefined))
    throw new BadRequestError('Send exactly one of dashboardId and dashboardPublicId', 'DASHBOARD_REFERENCE')
  const { db } = context
  const { dashboards } = context.storage.tables
  const inDeployment = eq(dashboards.deploymentId, context.deploymentId)
  if (input.dashboardId !== undefined) {
    const board = await first(
      db
        .select({ id: dashboards.id })
        .from(dashboards)
        .where(and(inDeployment, eq(dashboards.id, input.dashboardId))),
    )
    if (!board)
      throw new BadRequestError(
        `dashboardId: dashboard ${input.dashboardId} does not exist in this deployment`,
        'UNKNOWN_DASHBOARD',
      )
    return board.id
  }
  const board = await first(
    db
      .select({ id: dashboards.id })
      .from(dashboards)
      .where(and(inDeployment, eq(dashboards.publicId, input.dashboardPublicId!), eq(dashboards.published, true))),
  )
  if (!board)
    throw new BadRequestError(
      `dashboardPublicId: no published dashboard "${input.dashboardPublicId}" in this deployment`,
      'UNKNOWN_DASHBOARD',
    )
  return board.id
}

/** Checks recipients against the account (console users and embed tenants must exist) and normalizes ids. */
async function checkRecipients(
  context: ManagementContext,
  recipients: NotificationRecipient[],
): Promise<NotificationRecipient[]> {
  const { db } = context
  const { embedTenants, users } = context.storage.tables
  const checked: NotificationRecipient[] = []
  // A recipient named twice would get every delivery twice: 400, as other duplicates are.
  const seen = new Map<string, number>()
  for (const [index, recipient] of recipients.entries()) {
    const normalized = await checkRecipient(recipient, index)
    for (const key of await recipientKeys(context, normalized)) {
      const earlier = seen.get(key)
      if (earlier !== undefined)
        throw new BadRequestError(
          `recipients[${index}]: the same recipient as recipients[${earlier}]`,
          'DUPLICATE_RECIPIENT',
        )
      seen.set(key, index)
    }
    checked.push(normalized)
  }
  return checked

  async function checkRecipient(recipient: NotificationRecipient, index: number): Promise<NotificationRecipient> {
    const at = `recipients[${index}]`
    if (recipient.kind === 'user') {
      if (recipient.userId === undefined && recipient.email === undefined)
        throw new BadRequestError(`${at}: a console recipient needs userId or email`, 'INVALID_RECIPIENT')
      if (recipient.userId !== undefined) {
        const user = await first(
          db
            .select({ id: users.id })
            .from(users)
            .where(
              and(
                eq(users.id, recipient.userId),
                eq(users.accountId, context.actor.accountId),
                eq(users.kind, 'internal'),
              ),
            ),
        )
        if (!user)
          throw new BadRequestError(
            `${at}.userId: user ${recipient.userId} is not a console user of this account`,
            'UNKNOWN_USER',
          )
      }
      return recipient.email === undefined ? recipient : { ...recipient, email: normalizeIdentity(recipient.email) }
    }
    const tenant = await first(
      db
        .select({ id: embedTenants.id })
        .from(embedTenants)
        .where(
          and(eq(embedTenants.accountId, context.actor.accountId), eq(embedTenants.name, recipient.embedTenantName)),
        ),
    )
    if (!tenant)
      throw new BadRequestError(
        `${at}.embedTenantName: embed tenant "${recipient.embedTenantName}" does not exist`,
        'UNKNOWN_EMBED_TENANT',
      )
    // Never normalized, as everywhere an externalId names a user: `Acme-7` and `acme-7` may be two people.
    try {
      checkExternalId(recipient.externalId)
    } catch (error) {
      if (error instanceof BadRequestError) throw new BadRequestError(`${at}.${error.message}`, error.code)
      throw error
    }
    return recipient
  }
}

/**
 * What names a recipient: an embed user's tenant and id; a console user's id and the email that is their username,
 * whichever of the two was sent (each alone names them).
 */
async function recipientKeys(context: ManagementContext, recipient: NotificationRecipient): Promise<string[]> {
  if (recipient.kind === 'embedUser')
    return [JSON.stringify(['embedUser', recipient.embedTenantName, recipient.externalId])]
  const forms: Record<string, string | number>[] = []
  if (recipient.userId !== undefined) forms.push(...(await consoleUserForms(context, { id: recipient.userId })))
  if (recipient.email !== undefined) forms.push(...(await consoleUserForms(context, { email: recipient.email })))
  return [
    ...new Set(
      forms.map((form) => JSON.stringify(form.userId !== undefined ? ['userId', form.userId] : ['email', form.email])),
    ),
  ]
}

/** Whether a stored recipient has every one of `fields`, with the same value and type. */
function hasFields(fields: Record<string, string | number>) {
  return (recipient: unknown) =>
    typeof recipient === 'object' &&
    recipient !== null &&
    Object.entries(fields).every(([name, value]) => (recipient as Record<string, unknown>)[name] === value)
}

/**
 * The forms a console user takes among recipients: by `userId`, or by the email that is the user's username. A
 * notification to Ann by id is one to ann@example.com, so a filter by either finds it.
 */
async function consoleUserForms(
  context: ManagementContext,
  user: { id: number } | { email: string },
): Promise<Record<string, string | number>[]> {
  const { users } = context.storage.tables
  const known = await first(
    context.db
      .select({ id: users.id, identity: users.identity })
      .from(users)
      .where(
        and(
          'id' in user ? eq(users.id, user.id) : eq(users.identity, user.email),
          eq(users.accountId, context.actor.accountId),
          eq(users.kind, 'internal'),
        ),
      ),
  )
  const forms: Record<string, string | number>[] = ['id' in user ? { userId: user.id } : { email: user.email }]
  if (known) forms.push('id' in user ? { email: normalizeIdentity(known.identity) } : { userId: known.id })
  return forms.map((fields) => ({ kind: 'user', ...fields }))
}

export async function getNotification(context: ManagementContext, id: number): Promise<Notification> {
  requireAction(context.actor, 'ContentRead')
  return (await toNotifications(context, [await requireNotification(context, id)]))[0]
}

/**
 * Notifications, oldest first, cursor-paginated. Recipient filters: `recipientUserId` or `recipientEmail` for
 * console users (either finds a user named by the other), `recipientEmbedTenantName` with `recipientExternalId`
 * (both or neither) for embed users.
 */
export async function listNotifications(
  context: ManagementContext,
  query: NotificationsListQuery,
): Promise<NotificationsListResponse> {
  requireAction(context.actor, 'ContentRead')
  if ((query.recipientEmbedTenantName === undefined) !== (query.recipientExternalId === undefined))
    throw new BadRequestError(
      'recipientEmbedTenantName and recipientExternalId go together: send both or neither',
      'EMBED_RECIPIENT_FILTER',
    )
  const { dashboards, notifications } = context.storage.tables
  const filters: (SQL | undefined)[] = [eq(notifications.deploymentId, context.deploymentId)]
  if (query.dashboardPublicId !== undefined)
    filters.push(
      inArray(
        notifications.dashboardId,
        context.db
          .select({ id: dashboards.id })
          .from(dashboards)
          .where(eq(dashboards.publicId, query.dashboardPublicId)),
      ),
    )
  // Recipients live in a JSON value, which each database searches with functions of its own: they are matched
  // here instead, each filter by some recipient having all the fields of one of its forms.
  const wanted: Record<string, string | number>[][] = []
  if (query.recipientUserId !== undefined) wanted.push(await consoleUserForms(context, { id: query.recipientUserId }))
  if (query.recipientEmail !== undefined)
    wanted.push(await consoleUserForms(context, { email: normalizeIdentity(query.recipientEmail) }))
  if (query.recipientEmbedTenantName !== undefined && query.recipientExternalId !== undefined)
    wanted.push([
      {
        kind: 'embedUser',
        embedTenantName: query.recipientEmbedTenantName,
        externalId: query.recipientExternalId,
      },
    ])
  const page = await listPage(context.db, {
    table: notifications,
    where: filters,
    sorts: byCreation<NotificationRow>(notifications.createdAt),
    sortBy: 'createdAt',
    query,
    keep:
      wanted.length === 0
        ? undefined
        : (row) =>
            Array.isArray(row.recipients) &&
            wanted.every((forms) => forms.some((fields) => row.recipients.some(hasFields(fields)))),
  })
  return { items: await toNotifications(context, page.rows), pageInfo: page.pageInfo }
}

export async function createNotification(
  context: ManagementContext,
  input: CreateNotificationInput,
  checkQuery?: WidgetQueryCheck,
): Promise<Notification> {
  requireAction(context.actor, 'NotificationsManage')
  checkDashboardControls(input.filters ?? [], input.timeGrains ?? [], checkQuery)
  const { notifications } = context.storage.tables
  return writing(context, async (context) => {
    const dashboardId = await resolveDashboard(context, input)
    const recipients = await checkRecipients(context, input.recipients)
    const [row] = await context.tx
      .insert(notifications)
      .values({
        deploymentId: context.deploymentId,
        dashboardId,
        name: input.name,
        frequency: input.schedule.frequency,
        timeOfDay: input.schedule.timeOfDay ?? null,
        enabled: input.enabled ?? true,
        recipients,
        filters: input.filters ?? [],
        timeGrains: input.timeGrains ?? [],
        createdByKeyId: context.actor.keyId,
        createdAt: context.now,
        updatedAt: context.now,
      })
      .returning()
    return (await toNotifications(context, [row]))[0]
  })
}

export async function updateNotification(
  context: ManagementContext,
  id: number,
  input: UpdateNotificationInput,
  checkQuery?: WidgetQueryCheck,
): Promise<Notification> {
  requireAction(context.actor, 'NotificationsManage')
  checkDashboardControls(input.filters ?? [], input.timeGrains ?? [], checkQuery)
  const { notifications } = context.storage.tables
  return writing(context, async (context) => {
    await requireNotification(context, id)
    const recipients = input.recipients ? await checkRecipients(context, input.recipients) : undefined
    const [row] = await context.tx
      .update(notifications)
      .set({
        name: input.name,
        frequency: input.schedule?.frequency,
        timeOfDay: input.schedule ? (input.schedule.timeOfDay ?? null) : undefined,
        enabled: input.enabled,
        recipients,
        filters: input.filters,
        timeGrains: input.timeGrains,
        updatedAt: context.now,
      })
      .where(eq(notifications.id, id))
      .returning()
    return (await toNotifications(context, [row]))[0]
  })
}

export async function deleteNotification(context: ManagementContext, id: number): Promise<void> {
  requireAction(context.actor, 'NotificationsManage')
  const { notifications } = context.storage.tables
  return writing(context, async (context) => {
    await requireNotification(context, id)
    await context.tx.delete(notifications).where(eq(notifications.id, id))
  })
}
