import { sql } from 'drizzle-orm'
import {
  boolean,
  check,
  index,
  integer,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
  type AnyPgColumn,
} from 'drizzle-orm/pg-core'
import { jsonText, ms } from './columns'
import type { FillMissingRowsValue } from '../schema/management'
import { accounts, apiKeys, deployments, embedTenants } from './foundation'

/** The management API's resources (the SQLite `management` tables). */
export const folders = pgTable(
  'folders',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    deploymentId: integer('deployment_id')
      .notNull()
      .references(() => deployments.id, { onDelete: 'cascade' }),
    parentId: integer('parent_id').references((): AnyPgColumn => folders.id),
    name: text('name').notNull(),
    createdAt: ms('created_at').notNull(),
    updatedAt: ms('updated_at').notNull(),
  },
  (table) => [index('folders_deployment').on(table.deploymentId, table.createdAt, table.id)],
)

export const reports = pgTable(
  'reports',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    deploymentId: integer('deployment_id')
      .notNull()
      .references(() => deployments.id, { onDelete: 'cascade' }),
    folderId: integer('folder_id').references(() => folders.id),
    name: text('name').notNull(),
    query: text('query').notNull(),
    definition: jsonText<Record<string, unknown>>('definition'),
    createdByKeyId: integer('created_by_key_id').references(() => apiKeys.id, { onDelete: 'set null' }),
    lastViewedAt: ms('last_viewed_at'),
    createdAt: ms('created_at').notNull(),
    updatedAt: ms('updated_at').notNull(),
  },
  (table) => [
    index('reports_deployment').on(table.deploymentId, table.createdAt, table.id),
    index('reports_folder').on(table.folderId),
  ],
)

export const reportPlacements = pgTable(
  'report_placements',
  {
    reportId: integer('report_id')
      .notNull()
      .references(() => reports.id, { onDelete: 'cascade' }),
    externalWorkbookId: text('external_workbook_id').notNull(),
    resultLocation: text('result_location').notNull(),
    endResultCell: text('end_result_cell'),
    connectedByKeyId: integer('connected_by_key_id').references(() => apiKeys.id, { onDelete: 'set null' }),
    createdAt: ms('created_at').notNull(),
    updatedAt: ms('updated_at').notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.reportId, table.externalWorkbookId] }),
    index('report_placements_workbook').on(table.externalWorkbookId),
  ],
)

export const reportSnapshots = pgTable(
  'report_snapshots',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    reportId: integer('report_id')
      .notNull()
      .references(() => reports.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    query: text('query').notNull(),
    fillMissingRows: jsonText<FillMissingRowsValue>('fill_missing_rows'),
    createdAt: ms('created_at').notNull(),
    updatedAt: ms('updated_at').notNull(),
  },
  (table) => [index('report_snapshots_report').on(table.reportId, table.createdAt, table.id)],
)

export const workbooks = pgTable(
  'workbooks',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    deploymentId: integer('deployment_id')
      .notNull()
      .references(() => deployments.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    /** Unique per deployment; NULLs are distinct, so any number of workbooks may have none (as on SQLite). */
    slug: text('slug'),
    shared: boolean('shared').notNull().default(false),
    ownerKeyId: integer('owner_key_id').references(() => apiKeys.id, { onDelete: 'set null' }),
    /**
     * The embed tenant whose creator-mode sessions made the workbook (its dashboard built from chat answers), or none
     * for the account's own content. Deleting the tenant deletes its workbooks with their dashboards.
     */
    embedTenantId: integer('embed_tenant_id').references(() => embedTenants.id, { onDelete: 'cascade' }),
    createdAt: ms('created_at').notNull(),
    updatedAt: ms('updated_at').notNull(),
  },
  (table) => [
    uniqueIndex('workbooks_deployment_slug').on(table.deploymentId, table.slug),
    index('workbooks_deployment').on(table.deploymentId, table.createdAt, table.id),
    index('workbooks_embed_tenant').on(table.embedTenantId),
  ],
)

export const dashboards = pgTable(
  'dashboards',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    deploymentId: integer('deployment_id')
      .notNull()
      .references(() => deployments.id, { onDelete: 'cascade' }),
    workbookId: integer('workbook_id')
      .notNull()
      .unique()
      .references(() => workbooks.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    published: boolean('published').notNull().default(false),
    publicId: text('public_id').unique(),
    widgets: jsonText<unknown[]>('widgets').notNull(),
    filters: jsonText<unknown[]>('filters').notNull(),
    timeGrains: jsonText<unknown[]>('time_grains').notNull(),
    aiWidgetThreads: jsonText<unknown[]>('ai_widget_threads').notNull(),
    restrictDataDownload: boolean('restrict_data_download').notNull().default(false),
    useBoardDashboards: boolean('use_board_dashboards').notNull().default(false),
    fromSharedWorkspace: boolean('from_shared_workspace').notNull().default(false),
    checksum: text('checksum').notNull(),
    createdAt: ms('created_at').notNull(),
    updatedAt: ms('updated_at').notNull(),
  },
  (table) => [index('dashboards_deployment').on(table.deploymentId, table.createdAt, table.id)],
)

export const notifications = pgTable(
  'notifications',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    deploymentId: integer('deployment_id')
      .notNull()
      .references(() => deployments.id, { onDelete: 'cascade' }),
    dashboardId: integer('dashboard_id')
      .notNull()
      .references(() => dashboards.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    frequency: text('frequency', { enum: ['hourly', 'daily', 'weekly', 'monthly'] }).notNull(),
    timeOfDay: text('time_of_day'),
    enabled: boolean('enabled').notNull().default(true),
    recipients: jsonText<unknown[]>('recipients').notNull(),
    filters: jsonText<unknown[]>('filters').notNull(),
    timeGrains: jsonText<unknown[]>('time_grains').notNull(),
    createdByKeyId: integer('created_by_key_id').references(() => apiKeys.id, { onDelete: 'set null' }),
    createdAt: ms('created_at').notNull(),
    updatedAt: ms('updated_at').notNull(),
  },
  (table) => [
    index('notifications_deployment').on(table.deploymentId, table.createdAt, table.id),
    check('notifications_frequency', sql`${table.frequency} IN ('hourly', 'daily', 'weekly', 'monthly')`),
  ],
)

export const dbtSyncJobs = pgTable(
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
    createdAt: ms('created_at').notNull(),
    startedAt: ms('started_at'),
    finishedAt: ms('finished_at'),
  },
  (table) => [
    index('dbt_sync_jobs_deployment').on(table.deploymentId, table.createdAt),
    check('dbt_sync_jobs_status', sql`${table.status} IN ('queued', 'running', 'succeeded', 'failed')`),
  ],
)

export const appConfigs = pgTable('app_configs', {
  accountId: integer('account_id')
    .primaryKey()
    .references(() => accounts.id, { onDelete: 'cascade' }),
  config: jsonText<Record<string, unknown>>('config').notNull(),
  updatedAt: ms('updated_at').notNull(),
})

export const aiEngineerSettings = pgTable('ai_engineer_settings', {
  deploymentId: integer('deployment_id')
    .primaryKey()
    .references(() => deployments.id, { onDelete: 'cascade' }),
  settings: jsonText<Record<string, unknown>>('settings').notNull(),
  updatedAt: ms('updated_at').notNull(),
})

export const apiKeyPolicies = pgTable(
  'api_key_policies',
  {
    apiKeyId: integer('api_key_id')
      .primaryKey()
      .references(() => apiKeys.id, { onDelete: 'cascade' }),
    role: text('role', { enum: ['admin', 'editor', 'viewer', 'custom'] }).notNull(),
    actions: jsonText<string[]>('actions').notNull(),
    updatedAt: ms('updated_at').notNull(),
  },
  (table) => [check('api_key_policies_role', sql`${table.role} IN ('admin', 'editor', 'viewer', 'custom')`)],
)
