import { t } from 'elysia'
import { SqlResult } from '../../semantic/model'
import { BodyId, BodyInteger, Id, ListResponse, Name, Nullable, PageQuery, SemanticSql, Timestamp } from './common'

/** Schemas of dashboards, notifications, dbt syncs and app configuration; re-exported by the model's `index.ts`. */

// ---------------------------------------------------------------- dashboards

const Member = t.String({
  minLength: 1,
  maxLength: 200,
  pattern: '^[A-Za-z_][A-Za-z0-9_]*\\.[A-Za-z_][A-Za-z0-9_]*$',
  description: '`cube.member`',
})
const WidgetId = t.String({
  minLength: 1,
  maxLength: 64,
  pattern: '^[A-Za-z0-9_-]+$',
  description: 'Letters, digits, `_` and `-`, such as `revenue-by-month`',
})

export const DashboardWidgetKind = t.Union([
  t.Literal('number'),
  t.Literal('bar'),
  t.Literal('line'),
  t.Literal('table'),
])
export type DashboardWidgetKind = typeof DashboardWidgetKind.static

/** How much of the dashboard's width a widget takes: one column (`narrow`, the default) or the whole row. */
export const WidgetSize = t.Union([t.Literal('narrow'), t.Literal('wide')])
export type WidgetSize = typeof WidgetSize.static

/** The chat answer a widget was made from: a thread (`chatId`) and a message of the answer (or its question). */
export const AnswerSource = t.Object(
  {
    chatId: t.String({ minLength: 1, maxLength: 200 }),
    messageId: t.String({ minLength: 1, maxLength: 200 }),
  },
  { additionalProperties: false },
)
export type AnswerSource = typeof AnswerSource.static

/**
 * A period relative to the data that a widget keeps ("the last 6 months"): each time the widget is read, the date
 * range on `member` in its query is moved to end with the latest date the reader may see.
 */
export const RelativePeriod = t.Object(
  {
    member: Member,
    kind: t.Union([t.Literal('trailing'), t.Literal('this'), t.Literal('previous')]),
    unit: t.Union([t.Literal('day'), t.Literal('week'), t.Literal('month'), t.Literal('quarter'), t.Literal('year')]),
    amount: t.Optional(BodyInteger({ minimum: 1, maximum: 1000, description: 'For `trailing`: how many units' })),
    yearsBack: t.Optional(
      BodyInteger({ minimum: 1, maximum: 100, description: 'The same period that many years back' }),
    ),
    label: t.String({ minLength: 1, maxLength: 100, description: 'As the question said it: `the last 6 months`' }),
  },
  { additionalProperties: false },
)
export type RelativePeriod = typeof RelativePeriod.static

export const DashboardWidget = t.Object({
  id: t.String(),
  kind: DashboardWidgetKind,
  title: t.String(),
  query: t.String(),
  size: t.Optional(WidgetSize),
  source: t.Optional(AnswerSource),
  period: t.Optional(RelativePeriod),
})
export type DashboardWidget = typeof DashboardWidget.static

export const DashboardWidgetInput = t.Object(
  {
    id: t.Optional(WidgetId),
    kind: t.Optional(DashboardWidgetKind),
    title: t.Optional(Name),
    query: t.Optional(SemanticSql),
    size: t.Optional(WidgetSize),
    source: t.Optional(AnswerSource),
    period: t.Optional(RelativePeriod),
  },
  {
    additionalProperties: false,
    description:
      'A widget: `kind`, `title` and `query`, or `source` (a chat answer of this deployment), whose query, period, ' +
      'chart and title the widget takes (`kind` and `title` override them). `id` is generated when omitted.',
  },
)
export type DashboardWidgetInput = typeof DashboardWidgetInput.static

export const DashboardFilter = t.Object(
  {
    member: Member,
    operator: t.Union([
      t.Literal('equals'),
      t.Literal('notEquals'),
      t.Literal('contains'),
      t.Literal('gt'),
      t.Literal('gte'),
      t.Literal('lt'),
      t.Literal('lte'),
      t.Literal('inDateRange'),
      t.Literal('set'),
      t.Literal('notSet'),
    ]),
    values: t.Array(t.String({ maxLength: 1000 }), { maxItems: 1000 }),
    title: t.Optional(t.String({ maxLength: 200 })),
  },
  { additionalProperties: false },
)
export type DashboardFilter = typeof DashboardFilter.static

export const DashboardTimeGrain = t.Object(
  {
    member: Member,
    granularity: t.Union([
      t.Literal('hour'),
      t.Literal('day'),
      t.Literal('week'),
      t.Literal('month'),
      t.Literal('quarter'),
      t.Literal('year'),
    ]),
    title: t.Optional(t.String({ maxLength: 200 })),
  },
  { additionalProperties: false },
)
export type DashboardTimeGrain = typeof DashboardTimeGrain.static

export const AiWidgetThread = t.Object({ widgetId: t.String(), threadId: t.String(), attachedAt: Timestamp })
export type AiWidgetThread = typeof AiWidgetThread.static

export const Dashboard = t.Object({
  id: Id,
  deploymentId: Id,
  workbookId: Id,
  name: t.String(),
  published: t.Boolean(),
  /** Assigned at first publication; the embed pages address the dashboard by it. */
  publicId: Nullable(t.String()),
  widgets: t.Array(DashboardWidget),
  filters: t.Array(DashboardFilter),
  timeGrains: t.Array(DashboardTimeGrain),
  aiWidgetThreads: t.Array(AiWidgetThread),
  restrictDataDownload: t.Boolean(),
  useBoardDashboards: t.Boolean(),
  fromSharedWorkspace: t.Boolean(),
  /** Changes with every update; send it back to refuse a write over changes you have not seen (409). */
  checksum: t.String(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
})
export type Dashboard = typeof Dashboard.static

const DashboardConfigFields = {
  widgets: t.Optional(t.Array(DashboardWidgetInput, { maxItems: 100 })),
  filters: t.Optional(t.Array(DashboardFilter, { maxItems: 100 })),
  timeGrains: t.Optional(t.Array(DashboardTimeGrain, { maxItems: 100 })),
  published: t.Optional(t.Boolean()),
  restrictDataDownload: t.Optional(t.Boolean()),
  useBoardDashboards: t.Optional(t.Boolean()),
}

/** `widgets` became optional in v0.2.1. */
export const DashboardConfigInput = t.Object(
  { workbookId: BodyId, name: Name, ...DashboardConfigFields },
  { additionalProperties: false },
)
export type DashboardConfigInput = typeof DashboardConfigInput.static

export const UpdateDashboardInput = t.Object(
  {
    name: t.Optional(Name),
    ...DashboardConfigFields,
    checksum: t.Optional(t.String({ minLength: 1, maxLength: 128 })),
  },
  { additionalProperties: false },
)
export type UpdateDashboardInput = typeof UpdateDashboardInput.static

export const DashboardsListQuery = t.Object({
  workbookId: t.Optional(Id),
  published: t.Optional(t.Boolean()),
  ...PageQuery,
})
export type DashboardsListQuery = typeof DashboardsListQuery.static

export const DashboardsListResponse = ListResponse(Dashboard)
export type DashboardsListResponse = typeof DashboardsListResponse.static

export const UpdatePublishedAiWidgetThreadInput = t.Object(
  {
    threadId: t.String({ minLength: 1, maxLength: 200, description: 'The chat thread (`chatId`) behind the widget' }),
    widgetId: WidgetId,
    checksum: t.Optional(
      t.String({ minLength: 1, maxLength: 128, description: "The dashboard's checksum as you last read it" }),
    ),
  },
  { additionalProperties: false },
)
export type UpdatePublishedAiWidgetThreadInput = typeof UpdatePublishedAiWidgetThreadInput.static

export const WidgetDataQuery = t.Object({ format: t.Optional(t.Union([t.Literal('json'), t.Literal('csv')])) })
export type WidgetDataQuery = typeof WidgetDataQuery.static

/** A widget's data is what `POST .../sql` answers for its query: the semantic layer's own schema. */
export const WidgetData = SqlResult
export type WidgetData = SqlResult

// ---------------------------------------------------------------- notifications

/** A console user (by `userId` or `email`) or an embed user (by `embedTenantName` and `externalId`). */
export const NotificationRecipient = t.Union([
  t.Object(
    {
      kind: t.Literal('user'),
      userId: t.Optional(BodyId),
      email: t.Optional(
        t.String({
          minLength: 3,
          maxLength: 320,
          pattern: '^[^\\s@]+@[^\\s@]+$',
          description: 'An email address, e.g. `ann@example.com`',
        }),
      ),
      username: t.Optional(t.String({ minLength: 1, maxLength: 320 })),
    },
    { additionalProperties: false },
  ),
  t.Object(
    {
      kind: t.Literal('embedUser'),
      embedTenantName: t.String({ minLength: 1, maxLength: 36 }),
      externalId: t.String({ minLength: 1, maxLength: 320 }),
      username: t.Optional(t.String({ minLength: 1, maxLength: 320 })),
    },
    { additionalProperties: false },
  ),
])
export type NotificationRecipient = typeof NotificationRecipient.static

export const NotificationSchedule = t.Object(
  {
    frequency: t.Union([t.Literal('hourly'), t.Literal('daily'), t.Literal('weekly'), t.Literal('monthly')]),
    timeOfDay: t.Optional(
      Nullable(t.String({ pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$', description: '`HH:MM`, UTC' })),
    ),
  },
  { additionalProperties: false },
)
export type NotificationSchedule = typeof NotificationSchedule.static

export const Notification = t.Object({
  id: Id,
  deploymentId: Id,
  dashboardId: Id,
  dashboardPublicId: Nullable(t.String()),
  name: t.String(),
  schedule: t.Object({ frequency: NotificationSchedule.properties.frequency, timeOfDay: Nullable(t.String()) }),
  enabled: t.Boolean(),
  recipients: t.Array(NotificationRecipient),
  filters: t.Array(DashboardFilter),
  timeGrains: t.Array(DashboardTimeGrain),
  createdAt: Timestamp,
  updatedAt: Timestamp,
})
export type Notification = typeof Notification.static

const NotificationFields = {
  name: Name,
  schedule: NotificationSchedule,
  enabled: t.Optional(t.Boolean()),
  recipients: t.Array(NotificationRecipient, { minItems: 1, maxItems: 500 }),
  filters: t.Optional(t.Array(DashboardFilter, { maxItems: 100 })),
  timeGrains: t.Optional(t.Array(DashboardTimeGrain, { maxItems: 100 })),
}

/** Exactly one of `dashboardId` and `dashboardPublicId` (checked by the service, so the message says so). */
export const CreateNotificationInput = t.Object(
  {
    dashboardId: t.Optional(BodyId),
    dashboardPublicId: t.Optional(t.String({ minLength: 1, maxLength: 100 })),
    ...NotificationFields,
  },
  { additionalProperties: false },
)
export type CreateNotificationInput = typeof CreateNotificationInput.static

export const UpdateNotificationInput = t.Partial(t.Object(NotificationFields), { additionalProperties: false })
export type UpdateNotificationInput = typeof UpdateNotificationInput.static

export const NotificationsListQuery = t.Object({
  dashboardPublicId: t.Optional(t.String({ minLength: 1, maxLength: 100 })),
  recipientUserId: t.Optional(Id),
  recipientEmail: t.Optional(t.String({ minLength: 1, maxLength: 320 })),
  recipientEmbedTenantName: t.Optional(t.String({ minLength: 1, maxLength: 36 })),
  recipientExternalId: t.Optional(t.String({ minLength: 1, maxLength: 320 })),
  ...PageQuery,
})
export type NotificationsListQuery = typeof NotificationsListQuery.static

export const NotificationsListResponse = ListResponse(Notification)
export type NotificationsListResponse = typeof NotificationsListResponse.static

// ---------------------------------------------------------------- dbt sync

export const StartDbtSyncInput = t.Object(
  {
    branchName: t.Optional(
      t.String({ minLength: 1, maxLength: 100, description: "Default: the deployment's default branch" }),
    ),
  },
  { additionalProperties: false },
)
export type StartDbtSyncInput = typeof StartDbtSyncInput.static

export const DbtSyncResponse = t.Object({ branchName: t.String(), syncJobId: t.String(), workflowId: t.String() })
export type DbtSyncResponse = typeof DbtSyncResponse.static

export const DbtSyncStatus = t.Union([
  t.Literal('queued'),
  t.Literal('running'),
  t.Literal('succeeded'),
  t.Literal('failed'),
])
export type DbtSyncStatus = typeof DbtSyncStatus.static

export const DbtSyncJob = t.Object({
  syncJobId: t.String(),
  workflowId: t.String(),
  branchName: t.String(),
  status: DbtSyncStatus,
  createdAt: Timestamp,
  startedAt: Nullable(Timestamp),
  finishedAt: Nullable(Timestamp),
})
export type DbtSyncJob = typeof DbtSyncJob.static

// ---------------------------------------------------------------- app configuration

const Locale = t.String({
  minLength: 2,
  maxLength: 35,
  pattern: '^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$',
  description: 'BCP 47 tag, e.g. `en` or `pt-BR`',
})

export const LocalizedValue = t.Object(
  { locale: Locale, value: t.String({ maxLength: 500 }) },
  { additionalProperties: false },
)
export type LocalizedValue = typeof LocalizedValue.static

export const CreatorMode = t.Object({
  showGeneratedSql: t.Boolean(),
  showSemanticSql: t.Boolean(),
  localizedTitles: t.Array(LocalizedValue),
})
export type CreatorMode = typeof CreatorMode.static

export const EmbedSettings = t.Object({ locale: Nullable(t.String()) })
export type EmbedSettings = typeof EmbedSettings.static

export const AppTheme = t.Object({
  mode: t.Union([t.Literal('light'), t.Literal('dark'), t.Literal('system')]),
  primaryColor: Nullable(t.String()),
})
export type AppTheme = typeof AppTheme.static

export const AppConfigResponse = t.Object({
  appTheme: AppTheme,
  applyThemeGlobally: t.Boolean(),
  creatorMode: CreatorMode,
  embedding: EmbedSettings,
})
export type AppConfigResponse = typeof AppConfigResponse.static

export const UpdateAppConfigInput = t.Object(
  {
    appTheme: t.Optional(
      t.Object(
        {
          mode: t.Optional(AppTheme.properties.mode),
          primaryColor: t.Optional(
            Nullable(t.String({ pattern: '^#[0-9A-Fa-f]{6}$', description: 'A # and six hex digits, e.g. `#1A73E8`' })),
          ),
        },
        { additionalProperties: false },
      ),
    ),
    applyThemeGlobally: t.Optional(t.Boolean()),
    creatorMode: t.Optional(
      t.Object(
        {
          showGeneratedSql: t.Optional(t.Boolean()),
          showSemanticSql: t.Optional(t.Boolean()),
          localizedTitles: t.Optional(t.Array(LocalizedValue, { maxItems: 100 })),
        },
        { additionalProperties: false },
      ),
    ),
    embedding: t.Optional(t.Object({ locale: t.Optional(Nullable(Locale)) }, { additionalProperties: false })),
  },
  { additionalProperties: false, description: 'Only the fields sent change' },
)
export type UpdateAppConfigInput = typeof UpdateAppConfigInput.static
