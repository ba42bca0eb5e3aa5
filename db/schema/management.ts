import {
  index,
  integer,
  primaryKey,
  sqliteTable,
  text,
  uniqueIndex,
  type AnySQLiteColumn,
} from 'drizzle-orm/sqlite-core'
import { accounts, apiKeys, deployments, embedTenants } from './foundation'

/**
 * The management API's resources (migration 0004). Times are Unix milliseconds. Lists, nested configuration and
 * recipients are JSON columns: they are always read and written whole with their resource.
 */
export const folders = sqliteTable(
  'folders',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    deploymentId: integer('deployment_id')
      .notNull()
      .references(() => deployments.id, { onDelete: 'cascade' }),
    parentId: integer('parent_id').references((): AnySQLiteColumn => folders.id),
    name: text('name').notNull(),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (table) => [index('folders_deployment').on(table.deploymentId, table.createdAt, table.id)],
)

export const reports = sqliteTable(
  'reports',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    deploymentId: integer('deployment_id')
      .notNull()
      .references(() => deployments.id, { onDelete: 'cascade' }),
    folderId: integer('folder_id').references(() => folders.id),
    name: text('name').notNull(),
    query: text('query').notNull(),
    definition: text('definition', { mode: 'json' }).$type<Record<string, unknown>>(),
    createdByKeyId: integer('created_by_key_id').references(() => apiKeys.id, { onDelete: 'set null' }),
    lastViewedAt: integer('last_viewed_at'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (table) => [
    index('reports_deployment').on(table.deploymentId, table.createdAt, table.id),
    index('reports_folder').on(table.folderId),
  ],
)

export const reportPlacements = sqliteTable(
  'report_placements',
  {
    reportId: integer('report_id')
      .notNull()
      .references(() => reports.id, { onDelete: 'cascade' }),
    externalWorkbookId: text('external_workbook_id').notNull(),
    resultLocation: text('result_location').notNull(),
    endResultCell: text('end_result_cell'),
    connectedByKeyId: integer('connected_by_key_id').references(() => apiKeys.id, { onDelete: 'set null' }),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.reportId, table.externalWorkbookId] }),
    index('report_placements_workbook').on(table.externalWorkbookId),
  ],
)

export interface FillMissingRowsValue {
  member: string
  excludedDimensions: string[]
}

export const reportSnapshots = sqliteTable(
  'report_snapshots',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    reportId: integer('report_id')
      .notNull()
      .references(() => reports.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    query: text('query').notNull(),
    fillMissingRows: text('fill_missing_rows', { mode: 'json' }).$type<FillMissingRowsValue>(),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (table) => [index('report_snapshots_report').on(table.reportId, table.createdAt, table.id)],
)

export const workbooks = sqliteTable(
  'workbooks',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    deploymentId: integer('deployment_id')
      .notNull()
      .references(() => deployments.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    /** Unique per deployment; SQLite treats NULLs as distinct, so any number of workbooks may have none. */
    slug: text('slug'),
    shared: integer('shared', { mode: 'boolean' }).notNull().default(false),
    ownerKeyId: integer('owner_key_id').references(() => apiKeys.id, { onDelete: 'set null' }),
    /**
     * The embed tenant whose creator-mode sessions made the workbook (its dashboard built from chat answers), or none
     * for the account's own content. Deleting the tenant deletes its workbooks with their dashboards.
     */
    embedTenantId: integer('embed_tenant_id').references(() => embedTenants.id, { onDelete: 'cascade' }),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (table) => [
    uniqueIndex('workbooks_deployment_slug').on(table.deploymentId, table.slug),
    index('workbooks_deployment').on(table.deploymentId, table.createdAt, table.id),
    index('workbooks_embed_tenant').on(table.embedTenantId),
  ],
)

export const dashboards = sqliteTable(
  'dashboards',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    deploymentId: integer('deployment_id')
      .notNull()
      .references(() => deployments.id, { onDelete: 'cascade' }),
    workbookId: integer('workbook_id')
      .notNull()
      .unique()
      .references(() => workbooks.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    published: integer('published', { mode: 'boolean' }).notNull().default(false),
    /** Assigned on first publication and kept afterwards, so links survive unpublish and republish. */
    publicId: text('public_id').unique(),
    widgets: text('widgets', { mode: 'json' }).$type<unknown[]>().notNull(),
    filters: text('filters', { mode: 'json' }).$type<unknown[]>().notNull(),
    timeGrains: text('time_grains', { mode: 'json' }).$type<unknown[]>().notNull(),
    aiWidgetThreads: text('ai_widget_threads', { mode: 'json' }).$type<unknown[]>().notNull(),
    restrictDataDownload: integer('restrict_data_download', { mode: 'boolean' }).notNull().default(false),
    useBoardDashboards: integer('use_board_dashboards', { mode: 'boolean' }).notNull().default(false),
    fromSharedWorkspace: integer('from_shared_workspace', { mode: 'boolean' }).notNull().default(false),
    checksum: text('checksum').notNull(),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (table) => [index('dashboards_deployment').on(table.deploymentId, table.createdAt, table.id)],
)

export const notifications = sqliteTable(
  'notifications',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    deploymentId: integer('deployment_id')
      .notNull()
      .references(() => deployments.id, { onDelete: 'cascade' }),
    dashboardId: integer('dashboard_id')
      .notNull()
      .references(() => dashboards.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    frequency: text('frequency', { enum: ['hourly', 'daily', 'weekly', 'monthly'] }).notNull(),
    timeOfDay: text('time_of_day'),
    enabled: integer('enabled', { mode: 'boolean' }).notNull().default(true),
    recipients: text('recipients', { mode: 'json' }).$type<unknown[]>().notNull(),
    filters: text('filters', { mode: 'json' }).$type<unknown[]>().notNull(),
    timeGrains: text('time_grains', { mode: 'json' }).$type<unknown[]>().notNull(),
    createdByKeyId: integer('created_by_key_id').references(() => apiKeys.id, { onDelete: 'set null' }),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (table) => [index('notifications_deployment').on(table.deploymentId, table.createdAt, table.id)],
)

export const dbtSyncJobs = sqliteTable(
  'dbt_sync_jobs',
  {
    id: text('id').primaryKey(),
    deploymentId: integer('deployment_id')
      .notNull()
      .references(() => deployments.id, { onDelete: 'cascade' }),
    branchName: text('branch_name').notNull(),
    workflowId: text('workflow_id').notNull(),
    status: text('status', { enum: ['queued', 'running', 'succeeded', 'failed'] }).notNull(),
    requestedByKeyId: integer('requested_by_key_id').references(() => apiKeys.id, { onDelete: 'set null' }),
    createdAt: integer('created_at').notNull(),
    startedAt: integer('started_at'),
    finishedAt: integer('finished_at'),
  },
  (table) => [index('dbt_sync_jobs_deployment').on(table.deploymentId, table.createdAt)],
)

/** One row per account that changed its app configuration; absent rows mean the defaults. */
export const appConfigs = sqliteTable('app_configs', {
  accountId: integer('account_id')
    .primaryKey()
    .references(() => accounts.id, { onDelete: 'cascade' }),
  config: text('config', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
  updatedAt: integer('updated_at').notNull(),
})

/** One row per deployment that changed its AI engineer settings; absent rows mean the defaults. */
export const aiEngineerSettings = sqliteTable('ai_engineer_settings', {
  deploymentId: integer('deployment_id')
    .primaryKey()
    .references(() => deployments.id, { onDelete: 'cascade' }),
  settings: text('settings', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
  updatedAt: integer('updated_at').notNull(),
})

/** The management role of an API key; keys without a row get the default of their `admin` flag. */
export const apiKeyPolicies = sqliteTable('api_key_policies', {
  apiKeyId: integer('api_key_id')
    .primaryKey()
    .references(() => apiKeys.id, { onDelete: 'cascade' }),
  role: text('role', { enum: ['admin', 'editor', 'viewer', 'custom'] }).notNull(),
  actions: text('actions', { mode: 'json' }).$type<string[]>().notNull(),
  updatedAt: integer('updated_at').notNull(),
})
