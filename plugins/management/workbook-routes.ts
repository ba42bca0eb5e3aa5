import { Elysia, t } from 'elysia'
import type { AppDeps } from '../../src/deps'
import { authPlugin } from '../auth'
import { parseOptionalJson } from '../core/optional-json'
import { managementContext } from './context'
import { NotFoundError } from '../../src/errors'
import { WHOLE_MODEL } from '../semantic/semantic-service'
import { attachAiWidgetThread, createDashboard, deleteDashboard, getDashboard, listDashboards, updateDashboard, type WidgetQueryCheck } from './dashboards'
import {
  CreateWorkbookInput,
  Dashboard,
  DashboardConfigInput,
  DashboardsListQuery,
  DashboardsListResponse,
  DuplicateWorkbookInput,
  Id,
  UpdateDashboardInput,
  UpdatePublishedAiWidgetThreadInput,
  UpdateWorkbookInput,
  WidgetDataQuery,
  Workbook,
  WorkbooksListQuery,
  WorkbooksListResponse,
} from './model'
import { DEPLOYMENT, DeploymentParams, SECURITY } from './report-routes'
import { downloadWidgetData, toCsv, type WidgetQueryRunner } from './widget-data'
import { duplicateWorkbook } from './workbook-duplicate'
import { createWorkbook, deleteWorkbook, getWorkbook, listWorkbooks, updateWorkbook } from './workbooks'

const WorkbookParams = t.Object({ deploymentId: Id, workbookId: Id })
const DashboardParams = t.Object({ deploymentId: Id, dashboardId: Id })
const WidgetParams = t.Object({ deploymentId: Id, dashboardId: Id, widgetId: t.String({ minLength: 1, maxLength: 64 }) })
const NoContent = { 204: t.Void() }

/** Workbooks, their dashboards, AI widget threads and widget data downloads: HTTP glue over the domain modules. */
export function workbookRoutes(deps: AppDeps, runWidgetQuery: WidgetQueryRunner) {
  const { storage, clock } = deps
  const doc = (tag: string, summary: string, description?: string) => ({ summary, description, tags: [tag], security: SECURITY })
  /** Plans a widget query on the deployment's model over all its data (no user's policies), running nothing. */
  const widgetCheck = (deploymentId: number): WidgetQueryCheck => (query) => {
    const deployment = deps.directory.deployment(deploymentId)
    if (!deployment) throw new NotFoundError(`Deployment ${deploymentId} not found`, 'DEPLOYMENT_NOT_FOUND')
    deps.semantic.describe({ deployment, access: WHOLE_MODEL }, query)
  }

  return new Elysia({ name: 'management-workbooks', seed: deps.instanceId })
    .use(authPlugin(deps))
    .get(`${DEPLOYMENT}/workbooks`, ({ caller, params, query }) => listWorkbooks(managementContext(storage, clock(), caller, params.deploymentId), query), {
      managementAccess: true,
      params: DeploymentParams,
      query: WorkbooksListQuery,
      response: { 200: WorkbooksListResponse },
      detail: doc('Workbooks', 'List workbooks'),
    })
    .post(
      `${DEPLOYMENT}/workbooks`,
      ({ caller, params, body, status }) => status(201, createWorkbook(managementContext(storage, clock(), caller, params.deploymentId), body)),
      {
        managementAccess: true,
        params: DeploymentParams,
        body: CreateWorkbookInput,
        response: { 201: Workbook },
        detail: doc('Workbooks', 'Create a workbook', 'A `slug` held by another workbook is 409 unless `slugTakeover` is true.'),
      },
    )
    .get(
      `${DEPLOYMENT}/workbooks/:workbookId`,
      ({ caller, params }) => getWorkbook(managementContext(storage, clock(), caller, params.deploymentId), params.workbookId),
      { managementAccess: true, params: WorkbookParams, response: { 200: Workbook }, detail: doc('Workbooks', 'Get a workbook') },
    )
    .patch(
      `${DEPLOYMENT}/workbooks/:workbookId`,
      ({ caller, params, body }) => updateWorkbook(managementContext(storage, clock(), caller, params.deploymentId), params.workbookId, body),
      {
        managementAccess: true,
        params: WorkbookParams,
        body: UpdateWorkbookInput,
        response: { 200: Workbook },
        detail: doc('Workbooks', 'Update a workbook', '`UpdateWorkbookInput` accepts `slug` and `slugTakeover`.'),
      },
    )
    .delete(
      `${DEPLOYMENT}/workbooks/:workbookId`,
      ({ caller, params, status }) => {
        deleteWorkbook(managementContext(storage, clock(), caller, params.deploymentId), params.workbookId)
        return status(204, undefined)
      },
      { managementAccess: true, params: WorkbookParams, response: NoContent, detail: doc('Workbooks', 'Delete a workbook with its dashboard') },
    )
    .post(
      `${DEPLOYMENT}/workbooks/:workbookId/duplicate`,
      ({ caller, params, body, status }) =>
        status(201, duplicateWorkbook(managementContext(storage, clock(), caller, params.deploymentId), params.workbookId, body ?? {})),
      {
        managementAccess: true,
        params: WorkbookParams,
        parse: parseOptionalJson,
        body: t.Optional(DuplicateWorkbookInput),
        response: { 201: Workbook },
        detail: doc('Workbooks', 'Duplicate a workbook', 'Optional body `DuplicateWorkbookInput`: `shared: true` clones from the shared workspace.'),
      },
    )
    .post(
      `${DEPLOYMENT}/workbooks/:workbookId/dashboard/ai-widget-thread`,
      ({ caller, params, body }) => attachAiWidgetThread(managementContext(storage, clock(), caller, params.deploymentId), params.workbookId, body),
      {
        managementAccess: true,
        params: WorkbookParams,
        body: UpdatePublishedAiWidgetThreadInput,
        response: { 200: Dashboard },
        detail: doc(
          'Dashboards',
          'Attach an AI widget thread',
          "Attaches a chat thread to a widget of the workbook's published dashboard. A `checksum` other than the dashboard's current one is 409.",
        ),
      },
    )
    .get(`${DEPLOYMENT}/dashboards`, ({ caller, params, query }) => listDashboards(managementContext(storage, clock(), caller, params.deploymentId), query), {
      managementAccess: true,
      params: DeploymentParams,
      query: DashboardsListQuery,
      response: { 200: DashboardsListResponse },
      detail: doc('Dashboards', 'List dashboards'),
    })
    .post(
      `${DEPLOYMENT}/dashboards`,
      ({ caller, params, body, status }) => status(201, createDashboard(managementContext(storage, clock(), caller, params.deploymentId), body, widgetCheck(params.deploymentId))),
      {
        managementAccess: true,
        params: DeploymentParams,
        body: DashboardConfigInput,
        response: { 201: Dashboard },
        detail: doc(
          'Dashboards',
          "Create a workbook's dashboard",
          '`widgets` is optional (v0.2.1). `published: true` assigns a `publicId`. Each widget query is planned against the ' +
            "deployment's model (nothing runs): one that cannot run is 400 `INVALID_WIDGET_QUERY`, naming the widget.",
        ),
      },
    )
    .get(
      `${DEPLOYMENT}/dashboards/:dashboardId`,
      ({ caller, params }) => getDashboard(managementContext(storage, clock(), caller, params.deploymentId), params.dashboardId),
      { managementAccess: true, params: DashboardParams, response: { 200: Dashboard }, detail: doc('Dashboards', 'Get a dashboard') },
    )
    .patch(
      `${DEPLOYMENT}/dashboards/:dashboardId`,
      ({ caller, params, body }) => updateDashboard(managementContext(storage, clock(), caller, params.deploymentId), params.dashboardId, body, widgetCheck(params.deploymentId)),
      {
        managementAccess: true,
        params: DashboardParams,
        body: UpdateDashboardInput,
        response: { 200: Dashboard },
        detail: doc(
          'Dashboards',
          'Update a dashboard',
          'With `checksum`, a dashboard changed since is 409 instead of being overwritten. New `widgets` are checked as on create (400 `INVALID_WIDGET_QUERY`).',
        ),
      },
    )
    .delete(
      `${DEPLOYMENT}/dashboards/:dashboardId`,
      ({ caller, params, status }) => {
        deleteDashboard(managementContext(storage, clock(), caller, params.deploymentId), params.dashboardId)
        return status(204, undefined)
      },
      { managementAccess: true, params: DashboardParams, response: NoContent, detail: doc('Dashboards', 'Delete a dashboard') },
    )
    .get(
      `${DEPLOYMENT}/dashboards/:dashboardId/widgets/:widgetId/data`,
      async ({ caller, params, query }) => {
        const context = managementContext(storage, clock(), caller, params.deploymentId)
        const { widget, data } = await downloadWidgetData(context, params.dashboardId, params.widgetId, runWidgetQuery)
        if (query.format !== 'csv') return data
        const filename = `${widget.title.replace(/[^A-Za-z0-9._-]+/g, '_') || widget.id}.csv`
        return new Response(toCsv(data), {
          headers: { 'content-type': 'text/csv; charset=utf-8', 'content-disposition': `attachment; filename="${filename}"` },
        })
      },
      {
        managementAccess: true,
        params: WidgetParams,
        query: WidgetDataQuery,
        detail: doc(
          'Dashboards',
          "Download a widget's data",
          '`format=json` (default: `{ schema, data, totalRows }`, as `POST .../sql` answers) or `csv` (text/csv attachment). 403 when the dashboard has `restrictDataDownload` or the key lacks `DownloadData`.',
        ),
      },
    )
}
