import { Elysia } from 'elysia'
import { jsonBody, noBody } from '../core/strict-json'
import { modelQueryCheck } from '../management/dashboards/query-check'
import type { Directory } from '../auth/directory'
import type { SemanticService } from '../semantic/semantic-service'
import type { Storage } from '../../db/client'
import type { EmbedDashboards } from './embed-dashboards'
import { embedViewerOf, embedViewerPlugin, viewerMacro, type EmbedViewerDeps } from './embed-viewer'
import {
  EmbedDashboard,
  EmbedDashboardsList,
  EmbedDashboardsListQuery,
  EmbedWidgetParams,
  NewEmbedDashboard,
  NewEmbedWidget,
  PublicIdParams,
  SavedEmbedWidget,
  WidgetChange,
  WidgetRemoveQuery,
} from './model'
import { createTenantDashboards, creatorTenantOf, readOnly } from './tenant-dashboards'

const EMBED_TOKEN = [{ EmbedToken: [] }]
const READ_ONLY =
  'A session without creator mode (or whose embed tenant has creator mode off) is 403 `DASHBOARD_READ_ONLY`, ' +
  "as is a creator on the account's own dashboards (changed through the management API). Another embed tenant's " +
  'dashboard is 404.'

export interface TenantDashboardRoutesDeps extends EmbedViewerDeps {
  storage: Storage
  directory: Directory
  semantic: SemanticService
  clock: () => number
}

/**
 * The routes that build dashboards from chat answers, for the embed sessions of an embed tenant: create a
 * dashboard, pin an answer to it, change and remove its widgets. HTTP glue over `tenant-dashboards.ts`.
 */
export function tenantDashboardRoutes(deps: TenantDashboardRoutesDeps, dashboards: EmbedDashboards) {
  const tenantDashboards = createTenantDashboards({
    storage: deps.storage,
    clock: deps.clock,
    queryCheck: modelQueryCheck(deps),
  })
  const embedViewer = embedViewerOf(deps)
  // The writes' macro: a session that may only read is 403 before its body is looked at, as a caller without
  // credentials is 401 (it could never succeed, whatever it sends).
  const creators = new Elysia({ name: 'embed-creator', seed: deps.instanceId }).macro({
    embedCreator: viewerMacro(async (headers) => {
      const viewer = await embedViewer(headers)
      if ((await creatorTenantOf(deps.storage, viewer)) === undefined) throw readOnly()
      return viewer
    }),
  })
  return new Elysia({ name: 'tenant-dashboards', seed: deps.instanceId })
    .use(embedViewerPlugin(deps))
    .use(creators)
    .get('/api/v1/embed/dashboards', ({ viewer, query }) => tenantDashboards.list(viewer, query), {
      embedViewer: true,
      query: EmbedDashboardsListQuery,
      response: { 200: EmbedDashboardsList },
      detail: {
        summary: "The embed tenant's dashboards",
        description:
          "The dashboards the session's embed tenant built on its deployment, oldest first (none for a session " +
          'without a tenant): what a creator picks from when pinning an answer.',
        tags: ['Embed'],
        security: EMBED_TOKEN,
      },
    })
    .post(
      '/api/v1/embed/dashboards',
      async ({ viewer, body, status }) => {
        const publicId = await tenantDashboards.create(viewer, body)
        return status(201, await dashboards.dashboard(viewer, publicId))
      },
      {
        embedCreator: true,
        ...jsonBody(NewEmbedDashboard),
        response: { 201: EmbedDashboard },
        detail: {
          summary: 'Create a dashboard in the embed tenant',
          description:
            "An empty dashboard of the session's embed tenant, published at once: it opens at " +
            '`/embed/dashboard/{publicId}` for the sessions of that tenant. ' +
            READ_ONLY,
          tags: ['Embed'],
          security: EMBED_TOKEN,
        },
      },
    )
    .post(
      '/api/v1/embed/dashboards/:publicId/widgets',
      async ({ viewer, params, body, status }) =>
        status(201, await tenantDashboards.pin(viewer, params.publicId, body)),
      {
        embedCreator: true,
        params: PublicIdParams,
        ...jsonBody(NewEmbedWidget),
        response: { 201: SavedEmbedWidget },
        detail: {
          summary: 'Pin a chat answer to a dashboard',
          description:
            "A widget made from an answer of the session's own thread: it keeps the answer's semantic query (with " +
            'its filters, period and grain), never its rows, so every viewer reads it under their own row-level ' +
            'security; a period relative to the data ("the last 6 months") stays relative. Another user\'s thread, an ' +
            'unknown message or an answer that drew from no query is 404. Answers the widget with the ' +
            "dashboard's new `checksum`. " +
            READ_ONLY,
          tags: ['Embed'],
          security: EMBED_TOKEN,
        },
      },
    )
    .patch(
      '/api/v1/embed/dashboards/:publicId/widgets/:widgetId',
      ({ viewer, params, body }) => tenantDashboards.edit(viewer, params.publicId, params.widgetId, body),
      {
        embedCreator: true,
        params: EmbedWidgetParams,
        ...jsonBody(WidgetChange),
        response: { 200: SavedEmbedWidget },
        detail: {
          summary: 'Change a widget',
          description:
            'Renames it, changes its chart (`line`, `bar`, `table`, `kpi`), moves it (`position`, from 0) or resizes ' +
            "it (`narrow`, `wide`). `checksum` is the dashboard's as the page last read it: another is 409 " +
            '`DASHBOARD_CHANGED` (someone saved it meanwhile). ' +
            READ_ONLY,
          tags: ['Embed'],
          security: EMBED_TOKEN,
        },
      },
    )
    .delete(
      '/api/v1/embed/dashboards/:publicId/widgets/:widgetId',
      async ({ viewer, params, query, status }) => {
        await tenantDashboards.remove(viewer, params.publicId, params.widgetId, query.checksum)
        return status(204, undefined)
      },
      {
        embedCreator: true,
        ...noBody,
        params: EmbedWidgetParams,
        query: WidgetRemoveQuery,
        detail: {
          summary: 'Remove a widget',
          description:
            'With `?checksum=`, a dashboard changed since that checksum is 409 `DASHBOARD_CHANGED`. ' + READ_ONLY,
          tags: ['Embed'],
          security: EMBED_TOKEN,
        },
      },
    )
}
