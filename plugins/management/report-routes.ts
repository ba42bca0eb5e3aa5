import { Elysia, t } from 'elysia'
import type { AppDeps } from '../../src/deps'
import { authPlugin } from '../auth'
import { parseOptionalJson } from '../core/optional-json'
import { managementContext } from './context'
import { createFolder, deleteFolder, getFolder, listFolders, updateFolder } from './folders'
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
} from './model'
import { createReportSnapshot, deleteReportSnapshot, getReportSnapshot, listReportSnapshots, updateReportSnapshot } from './report-snapshots'
import {
  connectReportToWorkbook,
  createReport,
  deleteReport,
  disconnectReportFromWorkbook,
  getReport,
  listReports,
  updateReport,
} from './reports'

export const DEPLOYMENT = '/api/v1/deployments/:deploymentId'
export const SECURITY = [{ ApiKey: [] }]
export const DeploymentParams = t.Object({ deploymentId: Id })
const FolderParams = t.Object({ deploymentId: Id, folderId: Id })
const ReportParams = t.Object({ deploymentId: Id, reportId: Id })
const PlacementParams = t.Object({ deploymentId: Id, reportId: Id, externalWorkbookId: t.String({ minLength: 1, maxLength: 200 }) })
const SnapshotParams = t.Object({ deploymentId: Id, reportId: Id, snapshotId: Id })
const NoContent = { 204: t.Void() }

/** Folders, reports (with workbook placements) and report snapshots: HTTP glue over the domain modules. */
export function reportRoutes(deps: AppDeps) {
  const { storage, clock } = deps
  const doc = (tag: string, summary: string, description?: string) => ({ summary, description, tags: [tag], security: SECURITY })

  return new Elysia({ name: 'management-reports', seed: deps.instanceId })
    .use(authPlugin(deps))
    .get(`${DEPLOYMENT}/folders`, ({ caller, params, query }) => listFolders(managementContext(storage, clock(), caller, params.deploymentId), query), {
      managementAccess: true,
      params: DeploymentParams,
      query: FoldersListQuery,
      response: { 200: FoldersListResponse },
      detail: doc('Folders', 'List folders', 'Cursor pagination (`first`, `after`); `data` and `count` are deprecated but filled. Default order: oldest first.'),
    })
    .post(
      `${DEPLOYMENT}/folders`,
      ({ caller, params, body, status }) => status(201, createFolder(managementContext(storage, clock(), caller, params.deploymentId), body)),
      { managementAccess: true, params: DeploymentParams, body: CreateFolderInput, response: { 201: Folder }, detail: doc('Folders', 'Create a folder') },
    )
    .get(`${DEPLOYMENT}/folders/:folderId`, ({ caller, params }) => getFolder(managementContext(storage, clock(), caller, params.deploymentId), params.folderId), {
      managementAccess: true,
      params: FolderParams,
      response: { 200: Folder },
      detail: doc('Folders', 'Get a folder'),
    })
    .patch(
      `${DEPLOYMENT}/folders/:folderId`,
      ({ caller, params, body }) => updateFolder(managementContext(storage, clock(), caller, params.deploymentId), params.folderId, body),
      { managementAccess: true, params: FolderParams, body: UpdateFolderInput, response: { 200: Folder }, detail: doc('Folders', 'Rename or move a folder') },
    )
    .delete(
      `${DEPLOYMENT}/folders/:folderId`,
      ({ caller, params, status }) => {
        deleteFolder(managementContext(storage, clock(), caller, params.deploymentId), params.folderId)
        return status(204, undefined)
      },
      { managementAccess: true, params: FolderParams, response: NoContent, detail: doc('Folders', 'Delete an empty folder', '409 when it still holds folders or reports.') },
    )
    .get(`${DEPLOYMENT}/reports`, ({ caller, params, query }) => listReports(managementContext(storage, clock(), caller, params.deploymentId), query), {
      managementAccess: true,
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
      ({ caller, params, body, status }) => status(201, createReport(managementContext(storage, clock(), caller, params.deploymentId), body)),
      { managementAccess: true, params: DeploymentParams, body: CreateReportInput, response: { 201: Report }, detail: doc('Reports', 'Create a report') },
    )
    .get(`${DEPLOYMENT}/reports/:reportId`, ({ caller, params }) => getReport(managementContext(storage, clock(), caller, params.deploymentId), params.reportId), {
      managementAccess: true,
      params: ReportParams,
      response: { 200: Report },
      detail: doc('Reports', 'Get a report', 'Records the view in `lastViewedAt`.'),
    })
    .patch(
      `${DEPLOYMENT}/reports/:reportId`,
      ({ caller, params, body }) => updateReport(managementContext(storage, clock(), caller, params.deploymentId), params.reportId, body),
      { managementAccess: true, params: ReportParams, body: UpdateReportInput, response: { 200: Report }, detail: doc('Reports', 'Update a report') },
    )
    .delete(
      `${DEPLOYMENT}/reports/:reportId`,
      ({ caller, params, status }) => {
        deleteReport(managementContext(storage, clock(), caller, params.deploymentId), params.reportId)
        return status(204, undefined)
      },
      { managementAccess: true, params: ReportParams, response: NoContent, detail: doc('Reports', 'Delete a report') },
    )
    .put(
      `${DEPLOYMENT}/reports/:reportId/connect-workbook`,
      ({ caller, params, body }) => connectReportToWorkbook(managementContext(storage, clock(), caller, params.deploymentId), params.reportId, body),
      {
        managementAccess: true,
        params: ReportParams,
        body: ConnectReportToWorkbookInput,
        response: { 200: Report },
        detail: doc('Reports', 'Connect a report to your workbook', 'Links the report to an external spreadsheet. Needs only read access to the report. Added in v0.2.1.'),
      },
    )
    .delete(
      `${DEPLOYMENT}/reports/:reportId/connect-workbook/:externalWorkbookId`,
      ({ caller, params }) =>
        disconnectReportFromWorkbook(managementContext(storage, clock(), caller, params.deploymentId), params.reportId, params.externalWorkbookId),
      { managementAccess: true, params: PlacementParams, response: { 200: Report }, detail: doc('Reports', 'Disconnect a report from a workbook') },
    )
    .get(
      `${DEPLOYMENT}/reports/:reportId/snapshots`,
      ({ caller, params, query }) => listReportSnapshots(managementContext(storage, clock(), caller, params.deploymentId), params.reportId, query),
      {
        managementAccess: true,
        params: ReportParams,
        query: ReportSnapshotsListQuery,
        response: { 200: ReportSnapshotsListResponse },
        detail: doc('Report snapshots', 'List snapshots of a report'),
      },
    )
    .post(
      `${DEPLOYMENT}/reports/:reportId/snapshots`,
      ({ caller, params, body, status }) =>
        status(201, createReportSnapshot(managementContext(storage, clock(), caller, params.deploymentId), params.reportId, body ?? {})),
      {
        managementAccess: true,
        params: ReportParams,
        parse: parseOptionalJson,
        body: t.Optional(CreateReportSnapshotInput),
        response: { 201: ReportSnapshot },
        detail: doc('Report snapshots', "Snapshot a report's query", 'With optional `fillMissingRows` (`member`, `excludedDimensions`).'),
      },
    )
    .get(
      `${DEPLOYMENT}/reports/:reportId/snapshots/:snapshotId`,
      ({ caller, params }) => getReportSnapshot(managementContext(storage, clock(), caller, params.deploymentId), params.reportId, params.snapshotId),
      { managementAccess: true, params: SnapshotParams, response: { 200: ReportSnapshot }, detail: doc('Report snapshots', 'Get a snapshot') },
    )
    .patch(
      `${DEPLOYMENT}/reports/:reportId/snapshots/:snapshotId`,
      ({ caller, params, body }) =>
        updateReportSnapshot(managementContext(storage, clock(), caller, params.deploymentId), params.reportId, params.snapshotId, body),
      {
        managementAccess: true,
        params: SnapshotParams,
        body: UpdateReportSnapshotInput,
        response: { 200: ReportSnapshot },
        detail: doc('Report snapshots', 'Update a snapshot'),
      },
    )
    .delete(
      `${DEPLOYMENT}/reports/:reportId/snapshots/:snapshotId`,
      ({ caller, params, status }) => {
        deleteReportSnapshot(managementContext(storage, clock(), caller, params.deploymentId), params.reportId, params.snapshotId)
        return status(204, undefined)
      },
      { managementAccess: true, params: SnapshotParams, response: NoContent, detail: doc('Report snapshots', 'Delete a snapshot') },
    )
}
