import { t } from 'elysia'
import {
  ContentSortBy,
  BodyId,
  Id,
  ListResponse,
  ListResponseWithTotals,
  Name,
  Nullable,
  PageQuery,
  SemanticSql,
  SortOrder,
  Timestamp,
} from './common'

/**
 * The management API's wire schemas (release v0.2.1): validation, types, OpenAPI and the
 * client's types all come from here. Times are ISO 8601 strings; ids of stored resources are positive integers.
 */

// ---------------------------------------------------------------- authorization

/** RBAC actions of API-key policies. `SecretsManage` and `DownloadData` were added in release v0.2.1. */
export const PolicyAction = t.Union([
  t.Literal('ContentRead'),
  t.Literal('ContentEdit'),
  t.Literal('ContentManage'),
  t.Literal('NotificationsManage'),
  t.Literal('DbtSync'),
  t.Literal('SettingsManage'),
  t.Literal('SecretsManage'),
  t.Literal('DownloadData'),
])
export type PolicyAction = typeof PolicyAction.static

export const KeyRole = t.Union([t.Literal('admin'), t.Literal('editor'), t.Literal('viewer'), t.Literal('custom')])
export type KeyRole = typeof KeyRole.static

export const KeyPolicy = t.Object({
  keyId: Id,
  keyName: t.String(),
  role: KeyRole,
  actions: t.Array(PolicyAction),
  /** True when no policy was set and the key has the default of its `admin` flag. */
  isDefault: t.Boolean(),
})
export type KeyPolicy = typeof KeyPolicy.static

export const UpdateKeyPolicyInput = t.Object(
  {
    role: t.Optional(t.Union([t.Literal('admin'), t.Literal('editor'), t.Literal('viewer')])),
    actions: t.Optional(t.Array(PolicyAction, { uniqueItems: true })),
  },
  { additionalProperties: false, description: 'Exactly one of `role` (a preset) and `actions` (a custom set).' },
)
export type UpdateKeyPolicyInput = typeof UpdateKeyPolicyInput.static

/** Actions of chat thread policies. `SecretsManage` and `DownloadData` are in every policy action enum (v0.2.1). */
export const ChatThreadAction = t.Union([
  t.Literal('ChatThreadCreate'),
  t.Literal('ChatThreadRead'),
  t.Literal('ChatThreadAbort'),
  t.Literal('SecretsManage'),
  t.Literal('DownloadData'),
  t.Literal('*'),
])
export type ChatThreadAction = typeof ChatThreadAction.static

export const ChatThreadResourceType = t.Union([t.Literal('agent'), t.Literal('thread'), t.Literal('*')])
export type ChatThreadResourceType = typeof ChatThreadResourceType.static

export const ChatThreadPolicyDTO = t.Object(
  {
    actions: t.Array(ChatThreadAction, { minItems: 1 }),
    effect: t.Union([t.Literal('allow'), t.Literal('deny')]),
    resourceType: ChatThreadResourceType,
    /** Agent ids (as strings) or chat ids; `*` matches every resource of the type. */
    resources: t.Array(t.String({ minLength: 1, maxLength: 200 }), { minItems: 1 }),
  },
  { additionalProperties: false },
)
export type ChatThreadPolicyDTO = typeof ChatThreadPolicyDTO.static

export const AIEngineerSettings = t.Object({
  chatThreadPolicies: t.Array(ChatThreadPolicyDTO),
  instructions: Nullable(t.String()),
  updatedAt: Nullable(Timestamp),
})
export type AIEngineerSettings = typeof AIEngineerSettings.static

export const UpdateAIEngineerSettingsInput = t.Object(
  {
    chatThreadPolicies: t.Optional(t.Array(ChatThreadPolicyDTO, { maxItems: 200 })),
    instructions: t.Optional(Nullable(t.String({ maxLength: 20_000 }))),
  },
  { additionalProperties: false },
)
export type UpdateAIEngineerSettingsInput = typeof UpdateAIEngineerSettingsInput.static

// ---------------------------------------------------------------- folders

export const Folder = t.Object({
  id: Id,
  deploymentId: Id,
  name: t.String(),
  parentId: Nullable(Id),
  createdAt: Timestamp,
  updatedAt: Timestamp,
})
export type Folder = typeof Folder.static

export const CreateFolderInput = t.Object(
  { name: Name, parentId: t.Optional(Nullable(BodyId)) },
  { additionalProperties: false },
)
export type CreateFolderInput = typeof CreateFolderInput.static

export const UpdateFolderInput = t.Object(
  { name: t.Optional(Name), parentId: t.Optional(Nullable(BodyId)) },
  { additionalProperties: false },
)
export type UpdateFolderInput = typeof UpdateFolderInput.static

export const FoldersListQuery = t.Object({
  search: t.Optional(t.String({ maxLength: 200 })),
  parentId: t.Optional(Id),
  sortBy: t.Optional(t.Union([...ContentSortBy])),
  sortOrder: SortOrder,
  ...PageQuery,
})
export type FoldersListQuery = typeof FoldersListQuery.static

/** Renamed from `FoldersFindAllResult` in v0.1.0; `data` and `count` are deprecated but still filled. */
export const FoldersListResponse = ListResponseWithTotals(Folder, 'folders')
export type FoldersListResponse = typeof FoldersListResponse.static

// ---------------------------------------------------------------- reports

export const ReportPlacement = t.Object({
  workbookId: t.String({ description: 'The external workbook (spreadsheet) id' }),
  resultLocation: t.String(),
  endResultCell: Nullable(t.String()),
  connectedAt: Timestamp,
})
export type ReportPlacement = typeof ReportPlacement.static

export const Report = t.Object({
  id: Id,
  deploymentId: Id,
  name: t.String(),
  folderId: Nullable(Id),
  query: t.String(),
  definition: Nullable(t.Record(t.String(), t.Unknown())),
  canEdit: t.Boolean(),
  canManage: t.Boolean(),
  externalWorkbookPlacements: t.Array(ReportPlacement),
  lastViewedAt: Nullable(Timestamp),
  createdAt: Timestamp,
  updatedAt: Timestamp,
})
export type Report = typeof Report.static

export const CreateReportInput = t.Object(
  {
    name: Name,
    query: SemanticSql,
    folderId: t.Optional(Nullable(BodyId)),
    definition: t.Optional(Nullable(t.Record(t.String(), t.Unknown(), { description: 'Chart and layout settings' }))),
  },
  { additionalProperties: false },
)
export type CreateReportInput = typeof CreateReportInput.static

export const UpdateReportInput = t.Partial(CreateReportInput, { additionalProperties: false })
export type UpdateReportInput = typeof UpdateReportInput.static

export const ReportSortBy = t.Union([...ContentSortBy, t.Literal('lastViewedAt')])
export type ReportSortBy = typeof ReportSortBy.static

export const ReportsListQuery = t.Object({
  search: t.Optional(t.String({ maxLength: 200, description: 'Case-insensitive substring of the name' })),
  folderId: t.Optional(Id),
  externalWorkbookId: t.Optional(t.String({ minLength: 1, maxLength: 200 })),
  sortBy: t.Optional(ReportSortBy),
  sortOrder: SortOrder,
  ...PageQuery,
})
export type ReportsListQuery = typeof ReportsListQuery.static

/** Renamed from `ReportsFindAllResult` in v0.1.1; `data` and `count` are deprecated but still filled. */
export const ReportsListResponse = ListResponseWithTotals(Report, 'reports')
export type ReportsListResponse = typeof ReportsListResponse.static

export const ConnectReportToWorkbookInput = t.Object(
  {
    // Not blank: a spreadsheet or cell named by white space names none.
    externalWorkbookId: t.String({
      minLength: 1,
      maxLength: 200,
      pattern: '\\S',
      description: "The spreadsheet's id in its own service",
    }),
    resultLocation: t.String({
      minLength: 1,
      maxLength: 200,
      pattern: '\\S',
      description: 'Where results start, e.g. `Sheet1!A1`',
    }),
    endResultCell: t.Optional(
      Nullable(
        t.String({
          minLength: 1,
          maxLength: 200,
          pattern: '\\S',
          description: 'The last cell of the results, e.g. `D20`',
        }),
      ),
    ),
  },
  { additionalProperties: false },
)
export type ConnectReportToWorkbookInput = typeof ConnectReportToWorkbookInput.static

// ---------------------------------------------------------------- report snapshots

export const FillMissingRows = t.Object(
  {
    member: t.String({ minLength: 1, maxLength: 200, description: 'Time dimension whose missing rows are filled' }),
    excludedDimensions: t.Array(t.String({ minLength: 1, maxLength: 200 })),
  },
  { additionalProperties: false },
)
export type FillMissingRows = typeof FillMissingRows.static

export const ReportSnapshot = t.Object({
  id: Id,
  reportId: Id,
  name: t.String(),
  query: t.String({ description: "The report's query when the snapshot was taken" }),
  fillMissingRows: Nullable(FillMissingRows),
  createdAt: Timestamp,
  updatedAt: Timestamp,
})
export type ReportSnapshot = typeof ReportSnapshot.static

export const CreateReportSnapshotInput = t.Object(
  { name: t.Optional(Name), fillMissingRows: t.Optional(Nullable(FillMissingRows)) },
  { additionalProperties: false },
)
export type CreateReportSnapshotInput = typeof CreateReportSnapshotInput.static

export const UpdateReportSnapshotInput = CreateReportSnapshotInput
export type UpdateReportSnapshotInput = typeof UpdateReportSnapshotInput.static

export const ReportSnapshotsListQuery = t.Object({ ...PageQuery })
export type ReportSnapshotsListQuery = typeof ReportSnapshotsListQuery.static

export const ReportSnapshotsListResponse = ListResponse(ReportSnapshot)
export type ReportSnapshotsListResponse = typeof ReportSnapshotsListResponse.static

// ---------------------------------------------------------------- workbooks

export const ResourceOwner = t.Object({
  kind: t.Literal('apiKey'),
  id: Id,
  name: t.String(),
})
export type ResourceOwner = typeof ResourceOwner.static

export const Workbook = t.Object({
  id: Id,
  deploymentId: Id,
  name: t.String(),
  slug: Nullable(t.String()),
  /** In the shared workspace rather than the owner's personal one. */
  shared: t.Boolean(),
  user: Nullable(ResourceOwner),
  dashboardId: Nullable(Id),
  createdAt: Timestamp,
  updatedAt: Timestamp,
})
export type Workbook = typeof Workbook.static

const Slug = t.String({
  minLength: 1,
  maxLength: 100,
  pattern: '^[a-z0-9]+(?:-[a-z0-9]+)*$',
  description: 'Lowercase words joined by `-`',
})

export const CreateWorkbookInput = t.Object(
  {
    name: Name,
    slug: t.Optional(Nullable(Slug)),
    slugTakeover: t.Optional(
      t.Boolean({ description: 'Take the slug from the workbook that has it instead of failing with 409' }),
    ),
    shared: t.Optional(t.Boolean()),
  },
  { additionalProperties: false },
)
export type CreateWorkbookInput = typeof CreateWorkbookInput.static

export const UpdateWorkbookInput = t.Partial(CreateWorkbookInput, { additionalProperties: false })
export type UpdateWorkbookInput = typeof UpdateWorkbookInput.static

export const DuplicateWorkbookInput = t.Object(
  {
    shared: t.Optional(
      t.Boolean({ description: 'Clone from the shared workspace: the source must be a shared workbook' }),
    ),
    name: t.Optional(Name),
  },
  { additionalProperties: false },
)
export type DuplicateWorkbookInput = typeof DuplicateWorkbookInput.static

export const WorkbooksListQuery = t.Object({
  search: t.Optional(t.String({ maxLength: 200 })),
  shared: t.Optional(t.Boolean()),
  sortBy: t.Optional(t.Union([...ContentSortBy])),
  sortOrder: SortOrder,
  ...PageQuery,
})
export type WorkbooksListQuery = typeof WorkbooksListQuery.static

export const WorkbooksListResponse = ListResponse(Workbook)
export type WorkbooksListResponse = typeof WorkbooksListResponse.static

export * from './common'
export * from './dashboards'
