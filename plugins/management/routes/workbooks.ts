import { Elysia, t } from 'elysia'
import { jsonBody, noBody } from '../../core/strict-json'
import type { SemanticService } from '../../semantic/semantic-service'
import {
  attachAiWidgetThread,
  createDashboard,
  deleteDashboard,
  getDashboard,
  listDashboards,
  updateDashboard,
} from '../dashboards/dashboards'
import {
  DEPLOYMENT,
  DeploymentParams,
  doc,
  managementAccess,
  NoContent,
  type ManagementAccessDeps,
} from './management-macro'
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
} from '../model'
import { modelQueryCheck } from '../dashboards/query-check'
import { downloadWidgetData, toCsv, type WidgetQueryRunner } from '../dashboards/widget-data'
import { duplicateWorkbook } from '../workbooks/duplicate'
import { createWorkbook, deleteWorkbook, getWorkbook, listWorkbooks, updateWorkbook } from '../workbooks/workbooks'

const WorkbookParams = t.Object({ deploymentId: Id, workbookId: Id })
const DashboardParams = t.Object({ deploymentId: Id, dashboardId: Id })
const WidgetParams = t.Object({
  deploymentId: Id,
  dashboardId: Id,
  widgetId: t.String({ minLength: 1, maxLength: 64 }),
})

/** What the workbook routes need: the management macro's dependencies, and the semantic layer to check widget queries. */
export interface WorkbookRoutesDeps extends ManagementAccessDeps {
  semantic: SemanticService
}

/** Workbooks, their dashboards, AI widget threads and widget data downloads: HTTP glue over the domain modules. */
export function workbookRoutes(deps: WorkbookRoutesDeps, runWidgetQuery: WidgetQueryRunner) {
  return new Elysia({ name: 'management-workbooks', seed: deps.instanceId })
    .use(workbookItemRoutes(deps))
    .use(dashboardRoutes(deps, runWidgetQuery))
}

/** Workbooks: listed, created, read, changed, deleted and duplicated, and the AI widget threads of their dashboards. */
function workbookItemRoutes(deps: WorkbookRoutesDeps) {
  return new Elysia({ name: 'management-workbook-items', seed: deps.instanceId })
    .use(managementAccess(deps))
    .get(`${DEPLOYMENT}/workbooks`, ({ context, query }) => listWorkbooks(context, query), {
      management: true,
      params: DeploymentParams,
      query: WorkbooksListQuery,
      response: { 200: WorkbooksListResponse },
      detail: doc('Workbooks', 'List workbooks'),
    })
    .post(
      `${DEPLOYMENT}/workbooks`,
      async ({ context, body, status }) => status(201, await createWorkbook(context, body)),
      {
        management: true,
        params: DeploymentParams,
        ...jsonBody(CreateWorkbookInput),
        response: { 201: Workbook },
        detail: doc(
          'Workbooks',
          'Create a workbook',
          'A `slug` held by another workbook is 409 unless `slugTakeover` is true.',
        ),
      },
    )
    .get(`${DEPLOYMENT}/workbooks/:workbookId`, ({ context, params }) => getWorkbook(context, params.workbookId), {
      management: true,
      params: WorkbookParams,
      response: { 200: Workbook },
      detail: doc('Workbooks', 'Get a workbook'),
    })
    .patch(
      `${DEPLOYMENT}/workbooks/:workbookId`,
      ({ context, params, body }) => updateWorkbook(context, params.workbookId, body),
      {
        management: true,
        params: WorkbookParams,
        ...jsonBody(UpdateWorkbookInput),
        response: { 200: Workbook },
        detail: doc('Workbooks', 'Update a workbook', '`UpdateWorkbookInput` accepts `slug` and `slugTakeover`.'),
      },
    )
    .delete(
      `${DEPLOYMENT}/workbooks/:workbookId`,
      async ({ context, params, status }) => {
        await deleteWorkbook(context, params.workbookId)
        return status(204, undefined)
      },
      {
        management: true,
        ...noBody,
        params: WorkbookParams,
        response: NoContent,
        detail: doc('Workbooks', 'Delete a workbook with its dashboard'),
      },
    )
    .post(
      `${DEPLOYMENT}/workbooks/:workbookId/duplicate`,
      async ({ context, params, body, status }) =>
        status(201, await duplicateWorkbook(context, params.workbookId, body ?? {})),
      {
        management: true,
        params: WorkbookParams,
        ...jsonBody(DuplicateWorkbookInput, { optional: true }),
        response: { 201: Workbook },
        detail: doc(
          'Workbooks',
          'Duplicate a workbook',
          'Optional body `DuplicateWorkbookInput`: `shared: true` clones from the shared workspace.',
        ),
      },
    )
    .post(
      `${DEPLOYMENT}/workbooks/:workbookId/dashboard/ai-widget-thread`,
      ({ context, params, body }) => attachAiWidgetThread(context, params.workbookId, body),
      {
        management: true,
        params: WorkbookParams,
        ...jsonBody(UpdatePublishedAiWidgetThreadInput),
        response: { 200: Dashboard },
        detail: doc(
          'Dashboards',
          'Attach an AI widget thread',
          "Attaches a chat thread of this deployment to a widget of the workbook's published dashboard (another thread is 404). A `checksum` other than the dashboard's current one is 409.",
        ),
      },
    )
}

/** Dashboards and the data of their widgets. */
function dashboardRoutes(deps: WorkbookRoutesDeps, runWidgetQuery: WidgetQueryRunner) {
  const widgetCheck = modelQueryCheck(deps)
  return new Elysia({ name: 'management-dashboards', seed: deps.instanceId })
    .use(managementAccess(deps))
    .get(`${DEPLOYMENT}/dashboards`, ({ context, query }) => listDashboards(context, query), {
      management: true,
      params: DeploymentParams,
      query: DashboardsListQuery,
      response: { 200: DashboardsListResponse },
      detail: doc('Dashboards', 'List dashboards'),
    })
    .post(
      `${DEPLOYMENT}/dashboards`,
      async ({ context, body, status }) =>
        status(201, await createDashboard(context, body, await widgetCheck(context.deploymentId))),
      {
        management: true,
        params: DeploymentParams,
        ...jsonBody(DashboardConfigInput),
        response: { 201: Dashboard },
        detail: doc(
          'Dashboards',
          "Create a workbook's dashboard",
          '`widgets` is optional (v0.2.1). `published: true` assigns a `publicId`. Each widget query is planned against the ' +
            "deployment's model (nothing runs): one that cannot run is 400 `INVALID_WIDGET_QUERY`, naming the widget. " +
            'A filter or time grain the model cannot apply is 400 `INVALID_DASHBOARD_CONTROL`.',
        ),
      },
    )
    .get(`${DEPLOYMENT}/dashboards/:dashboardId`, ({ context, params }) => getDashboard(context, params.dashboardId), {
      management: true,
      params: DashboardParams,
      response: { 200: Dashboard },
      detail: doc('Dashboards', 'Get a dashboard'),
    })
    .patch(
      `${DEPLOYMENT}/dashboards/:dashboardId`,
      async ({ context, params, body }) =>
        updateDashboard(context, params.dashboardId, body, await widgetCheck(context.deploymentId)),
      {
        management: true,
        params: DashboardParams,
        ...jsonBody(UpdateDashboardInput),
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
      async ({ context, params, status }) => {
        await deleteDashboard(context, params.dashboardId)
        return status(204, undefined)
      },
      {
        management: true,
        ...noBody,
        params: DashboardParams,
        response: NoContent,
        detail: doc('Dashboards', 'Delete a dashboard'),
      },
    )
    .get(
      `${DEPLOYMENT}/dashboards/:dashboardId/widgets/:widgetId/data`,
      async ({ context, params, query }) => {
        const { widget, data } = await downloadWidgetData(context, params.dashboardId, params.widgetId, runWidgetQuery)
        if (query.format !== 'csv') return data
        const filename = `${widget.title.replace(/[^A-Za-z0-9._-]+/g, '_') || widget.id}.csv`
        return new Response(toCsv(data), {
          headers: {
            'content-type': 'text/csv; charset=utf-8',
            'content-disposition': `attachment; filename="${filename}"`,
          },
        })
      },
      {
        management: true,
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
