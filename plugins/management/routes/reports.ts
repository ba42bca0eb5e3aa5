import { Elysia, t } from 'elysia'
import { jsonBody, noBody } from '../../core/strict-json'
import { createFolder, deleteFolder, getFolder, listFolders, updateFolder } from '../workbooks/folders'
import {
  type ManagementAccessDeps,
  DEPLOYMENT,
  DeploymentParams,
  doc,
  managementAccess,
  NoContent,
} from './management-macro'
import {
  ConnectReportToWorkbookInput,
  CreateFolderInput,
  CreateReportInput,
  CreateReportSnapshotInput,
  Folder,
  FoldersListQuery,
  FoldersListResponse,
  Id,
  Report,
  ReportSnapshot,
  ReportSnapshotsListQuery,
  ReportSnapshotsListResponse,
  ReportsListQuery,
  ReportsListResponse,
  UpdateFolderInput,
  UpdateReportInput,
  UpdateReportSnapshotInput,
} from '../model'
import {
  createReportSnapshot,
  deleteReportSnapshot,
  getReportSnapshot,
  listReportSnapshots,
  updateReportSnapshot,
} from '../reports/snapshots'
import {
  connectReportToWorkbook,
  createReport,
  deleteReport,
  disconnectReportFromWorkbook,
  getReport,
  listReports,
  updateReport,
} from '../reports/reports'

const FolderParams = t.Object({ deploymentId: Id, folderId: Id })
const ReportParams = t.Object({ deploymentId: Id, reportId: Id })
const PlacementParams = t.Object({
  deploymentId: Id,
  reportId: Id,
  externalWorkbookId: t.String({ minLength: 1, maxLength: 200 }),
})
const SnapshotParams = t.Object({ deploymentId: Id, reportId: Id, snapshotId: Id })

/** Folders, reports (with workbook placements) and report snapshots: HTTP glue over the domain modules. */
export function reportRoutes(deps: ManagementAccessDeps) {
  return new Elysia({ name: 'management-reports', seed: deps.instanceId })
    .use(folderRoutes(deps))
    .use(reportItemRoutes(deps))
    .use(reportSnapshotRoutes(deps))
}

/** The folders of a deployment: listed, created, read, changed and deleted. */
function folderRoutes(deps: ManagementAccessDeps) {
  return new Elysia({ name: 'management-folders', seed: deps.instanceId })
    .use(managementAccess(deps))
    .get(`${DEPLOYMENT}/folders`, ({ context, query }) => listFolders(context, query), {
      management: true,
      params: DeploymentParams,
      query: FoldersListQuery,
      response: { 200: FoldersListResponse },
      detail: doc(
        'Folders',
        'List folders',
        'Cursor pagination (`first`, `after`); `data` and `count` are deprecated but filled. Default order: oldest first.',
      ),
    })
    .post(
      `${DEPLOYMENT}/folders`,
      async ({ context, body, status }) => status(201, await createFolder(context, body)),
      {
        management: true,
        params: DeploymentParams,
        ...jsonBody(CreateFolderInput),
        response: { 201: Folder },
        detail: doc('Folders', 'Create a folder'),
      },
    )
    .get(`${DEPLOYMENT}/folders/:folderId`, ({ context, params }) => getFolder(context, params.folderId), {
      management: true,
      params: FolderParams,
      response: { 200: Folder },
      detail: doc('Folders', 'Get a folder'),
    })
    .patch(
      `${DEPLOYMENT}/folders/:folderId`,
      ({ context, params, body }) => updateFolder(context, params.folderId, body),
      {
        management: true,
        params: FolderParams,
        ...jsonBody(UpdateFolderInput),
        response: { 200: Folder },
        detail: doc('Folders', 'Rename or move a folder'),
      },
    )
    .delete(
      `${DEPLOYMENT}/folders/:folderId`,
      async ({ context, params, status }) => {
        await deleteFolder(context, params.folderId)
        return status(204, undefined)
      },
      {
        management: true,
        ...noBody,
        params: FolderParams,
        response: NoContent,
        detail: doc('Folders', 'Delete an empty folder', '409 when it still holds folders or reports.'),
      },
    )
}

/** Reports and their placements in workbooks. */
function reportItemRoutes(deps: ManagementAccessDeps) {
  return new Elysia({ name: 'management-report-items', seed: deps.instanceId })
    .use(managementAccess(deps))
    .get(`${DEPLOYMENT}/reports`, ({ context, query }) => listReports(context, query), {
      management: true,
      params: DeploymentParams,
      query: ReportsListQuery,
      response: { 200: ReportsListResponse },
      detail: doc(
        'Reports',
        'List reports',
        'Filters `search`, `folderId`, `externalWorkbookId`; `sortBy` `name` (A to Z), `createdAt` (oldest first, the default), `updatedAt` and `lastViewedAt` (newest first); `sortOrder` reverses. Cursor pagination is unavailable with `lastViewedAt`: its first page is served without `endCursor`, and `after` is 400.',
      ),
    })
    .post(
      `${DEPLOYMENT}/reports`,
      async ({ context, body, status }) => status(201, await createReport(context, body)),
      {
        management: true,
        params: DeploymentParams,
        ...jsonBody(CreateReportInput),
        response: { 201: Report },
        detail: doc('Reports', 'Create a report'),
      },
    )
    .get(`${DEPLOYMENT}/reports/:reportId`, ({ context, params }) => getReport(context, params.reportId), {
      management: true,
      params: ReportParams,
      response: { 200: Report },
      detail: doc('Reports', 'Get a report', 'Records the view in `lastViewedAt`.'),
    })
    .patch(
      `${DEPLOYMENT}/reports/:reportId`,
      ({ context, params, body }) => updateReport(context, params.reportId, body),
      {
        management: true,
        params: ReportParams,
        ...jsonBody(UpdateReportInput),
        response: { 200: Report },
        detail: doc('Reports', 'Update a report'),
      },
    )
    .delete(
      `${DEPLOYMENT}/reports/:reportId`,
      async ({ context, params, status }) => {
        await deleteReport(context, params.reportId)
        return status(204, undefined)
      },
      {
        management: true,
        ...noBody,
        params: ReportParams,
        response: NoContent,
        detail: doc('Reports', 'Delete a report'),
      },
    )
    .put(
      `${DEPLOYMENT}/reports/:reportId/connect-workbook`,
      ({ context, params, body }) => connectReportToWorkbook(context, params.reportId, body),
      {
        management: true,
        params: ReportParams,
        ...jsonBody(ConnectReportToWorkbookInput),
        response: { 200: Report },
        detail: doc(
          'Reports',
          'Connect a report to your workbook',
          'Links the report to an external spreadsheet. Needs only read access to the report. Added in v0.2.1.',
        ),
      },
    )
    .delete(
      `${DEPLOYMENT}/reports/:reportId/connect-workbook/:externalWorkbookId`,
      ({ context, params }) => disconnectReportFromWorkbook(context, params.reportId, params.externalWorkbookId),
      {
        management: true,
        ...noBody,
        params: PlacementParams,
        response: { 200: Report },
        detail: doc('Reports', 'Disconnect a report from a workbook'),
      },
    )
}

/** Snapshots of a report. */
function reportSnapshotRoutes(deps: ManagementAccessDeps) {
  return new Elysia({ name: 'management-report-snapshots', seed: deps.instanceId })
    .use(managementAccess(deps))
    .get(
      `${DEPLOYMENT}/reports/:reportId/snapshots`,
      ({ context, params, query }) => listReportSnapshots(context, params.reportId, query),
      {
        management: true,
        params: ReportParams,
        query: ReportSnapshotsListQuery,
        response: { 200: ReportSnapshotsListResponse },
        detail: doc('Report snapshots', 'List snapshots of a report'),
      },
    )
    .post(
      `${DEPLOYMENT}/reports/:reportId/snapshots`,
      async ({ context, params, body, status }) =>
        status(201, await createReportSnapshot(context, params.reportId, body ?? {})),
      {
        management: true,
        params: ReportParams,
        ...jsonBody(CreateReportSnapshotInput, { optional: true }),
        response: { 201: ReportSnapshot },
        detail: doc(
          'Report snapshots',
          "Snapshot a report's query",
          'With optional `fillMissingRows` (`member`, `excludedDimensions`).',
        ),
      },
    )
    .get(
      `${DEPLOYMENT}/reports/:reportId/snapshots/:snapshotId`,
      ({ context, params }) => getReportSnapshot(context, params.reportId, params.snapshotId),
      {
        management: true,
        params: SnapshotParams,
        response: { 200: ReportSnapshot },
        detail: doc('Report snapshots', 'Get a snapshot'),
      },
    )
    .patch(
      `${DEPLOYMENT}/reports/:reportId/snapshots/:snapshotId`,
      ({ context, params, body }) => updateReportSnapshot(context, params.reportId, params.snapshotId, body),
      {
        management: true,
        params: SnapshotParams,
        ...jsonBody(UpdateReportSnapshotInput),
        response: { 200: ReportSnapshot },
        detail: doc('Report snapshots', 'Update a snapshot'),
      },
    )
    .delete(
      `${DEPLOYMENT}/reports/:reportId/snapshots/:snapshotId`,
      async ({ context, params, status }) => {
        await deleteReportSnapshot(context, params.reportId, params.snapshotId)
        return status(204, undefined)
      },
      {
        management: true,
        ...noBody,
        params: SnapshotParams,
        response: NoContent,
        detail: doc('Report snapshots', 'Delete a snapshot'),
      },
    )
}
