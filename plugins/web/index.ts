import { Elysia, t } from 'elysia'
import type { Storage } from '../../db/client'
import type { Logger } from '../../lib/logger'
import { Value } from '@sinclair/typebox/value'
import { BadRequestError, NotFoundError, UnauthorizedError } from '../../lib/errors'
import type { ViewerControls } from './dashboard-controls'
import type { Directory } from '../auth/directory'
import type { ApiKeyAuthenticator, EmbedCaller, EmbedTokenVerifier } from '../auth/model'
import type { UserProvisioner } from '../auth/user-provisioner'
import type { SemanticService } from '../semantic/semantic-service'
import { toCsv } from '../management/dashboards/widget-data'
import { readableColumns } from './readable-columns'
import { webAssets } from './assets'
import { createEmbedContextReader } from './embed-context'
import { createEmbedDashboards } from './embed-dashboards'
import { embedViewerPlugin } from './embed-viewer'
import { tenantDashboardRoutes } from './tenant-dashboard-routes'
import {
  AssetParams,
  ChatPageQuery,
  DashboardPageQuery,
  EmbedContext,
  EmbedDashboard,
  EmbedWidgetData,
  EmbedWidgetDataQuery,
  EmbedWidgetParams,
  DocsChapterParams,
  PublicIdParams,
  ViewerControlsSchema,
} from './model'
import { version } from '../../package.json'
import readme from '../../README.md' with { type: 'text' }
import { docChapter } from './docs'
import { ASSET_PREFIX, FAVICON, HOME_HEADERS, PAGE_HEADERS, renderPage } from './pages'

const EMBED_TOKEN = [{ EmbedToken: [] }]

/** The README's and the docs' Markdown: always the running build's. */
const MARKDOWN_HEADERS = {
  'content-type': 'text/markdown; charset=utf-8',
  'cache-control': 'no-cache',
  'x-content-type-options': 'nosniff',
}

/** The `controls` parameter: JSON of the viewer's filter values and time grains; malformed is 400, never a 500. */
function parseControls(raw: string | undefined): ViewerControls {
  if (raw === undefined || raw === '') return {}
  let parsed: unknown
  try {
    parsed = JSON.parse(raw)
  } catch {
    throw new BadRequestError('controls: not JSON', 'INVALID_CONTROLS')
  }
  if (!Value.Check(ViewerControlsSchema, parsed))
    throw new BadRequestError(
      'controls: expected {"filters":{"cube.member":["value"]},"timeGrains":{"cube.member":"month"}}',
      'INVALID_CONTROLS',
    )
  return parsed
}

interface ServedAsset {
  contentType: string
  cacheControl: string
  body: Uint8Array<ArrayBuffer>
  /** Made at the first request that takes it, then kept. */
  gzip?: Uint8Array<ArrayBuffer>
}

/**
 * Each asset's bytes, made once: assets are small and requested by every page view. Their gzip form is made when
 * first asked for, not at start: compressing them was about a thirtieth of the start-up.
 */
function serveableAssets(): Map<string, ServedAsset> {
  const served = new Map<string, ServedAsset>()
  const add = (asset: { name: string; contentType: string; body: string }, cacheControl: string) => {
    served.set(asset.name, { contentType: asset.contentType, cacheControl, body: new TextEncoder().encode(asset.body) })
  }
  // The script and stylesheet are named by their content's hash: a new build is a new name.
  add(webAssets.script, 'public, max-age=31536000, immutable')
  add(webAssets.style, 'public, max-age=31536000, immutable')
  add(FAVICON, 'public, max-age=86400')
  return served
}

/** What the embed pages and their data routes need from the app. */
export interface WebDeps {
  storage: Storage
  directory: Directory
  authenticateApiKey: ApiKeyAuthenticator
  embedTokens: EmbedTokenVerifier
  semantic: SemanticService
  users: UserProvisioner
  logger: Logger
  instanceId: string
  clock: () => number
}

/**
 * The embedded web pages: `/embed/dashboard/{publicId}?session=` and
 * `/embed/chat?sessionId=` with their hashed script and stylesheet, and the embed-token routes the pages call:
 * the session's context, the published dashboard and its widgets' data (viewed with the viewer's access, downloaded
 * unless the dashboard restricts it). The pages never see an API key: they exchange the session for an embed token.
 */
export function webPlugin(deps: WebDeps) {
  const { storage, directory } = deps
  const contextOf = createEmbedContextReader(storage, directory, deps.semantic, deps.users)
  const dashboards = createEmbedDashboards({ storage, directory, semantic: deps.semantic, users: deps.users })
  const pages: Pages = {
    dashboard: renderPage('dashboard', webAssets),
    chat: renderPage('chat', webAssets),
    home: renderPage('home', webAssets, version),
    readme: renderPage('readme', webAssets),
  }
  return new Elysia({ name: 'web', seed: deps.instanceId })
    .use(embedViewerPlugin(deps))
    .use(tenantDashboardRoutes(deps, dashboards))
    .use(frontDoorRoutes(deps, pages))
    .use(embedPageRoutes(deps, pages))
    .use(embedDataRoutes(deps, contextOf, dashboards))
}

/** The pages, rendered once: each names the build's hashed script and stylesheet. */
type Pages = Record<'dashboard' | 'chat' | 'home' | 'readme', ReturnType<typeof renderPage>>
type EmbedDashboards = ReturnType<typeof createEmbedDashboards>

/** The front door, the README and the docs' chapters, as pages and as Markdown. */
function frontDoorRoutes(deps: WebDeps, pages: Pages) {
  return new Elysia({ name: 'web-front-door', seed: deps.instanceId })
    .get(
      '/',
      ({ set }) => {
        Object.assign(set.headers, HOME_HEADERS)
        return pages.home
      },
      {
        detail: {
          operationId: 'getFrontDoorPage',
          summary: 'Front door (web page)',
          description:
            "The server's status and version, links to the API reference and metrics and, with an API key pasted (kept in the " +
            "tab's memory only), the key's deployments and an embed preview that opens the chat or a dashboard as a chosen user.",
          tags: ['Embed pages'],
          security: [],
        },
      },
    )
    .get(
      '/readme',
      ({ set }) => {
        Object.assign(set.headers, HOME_HEADERS)
        return pages.readme
      },
      {
        detail: {
          operationId: 'getReadmePage',
          summary: "The project's README (web page)",
          tags: ['Embed pages'],
          security: [],
        },
      },
    )
    .get(
      '/readme.md',
      ({ set }) => {
        Object.assign(set.headers, MARKDOWN_HEADERS)
        return readme
      },
      {
        detail: {
          operationId: 'getReadmeMarkdown',
          summary: "The project's README as Markdown, from the build that runs",
          tags: ['Embed pages'],
          security: [],
        },
      },
    )
    .get(
      '/docs/:name',
      ({ params, set }) => {
        const chapter = docChapter(params.name)
        if (!chapter.markdown) {
          Object.assign(set.headers, HOME_HEADERS)
          return pages.readme
        }
        Object.assign(set.headers, MARKDOWN_HEADERS)
        return chapter.text
      },
      {
        params: DocsChapterParams,
        detail: {
          operationId: 'getDocsChapter',
          summary: 'A chapter of the docs (web page, or Markdown with .md)',
          description:
            '`/docs/{name}` is the page, `/docs/{name}.md` its Markdown, from the build that runs: `configuration`, ' +
            '`connecting-a-database`, `writing-a-model`, `chat-api`, `embedding`, `management-api`, `several-nodes`, ' +
            '`operating`, `benchmarks`, `testing`. Another name is 404 `DOC_NOT_FOUND`.',
          tags: ['Embed pages'],
          security: [],
        },
      },
    )
}

/** The embed pages (a published dashboard, the standalone chat) and their script, stylesheet and icon. */
function embedPageRoutes(deps: WebDeps, pages: Pages) {
  const assets = serveableAssets()
  return new Elysia({ name: 'web-embed-pages', seed: deps.instanceId })
    .get(
      '/embed/dashboard/:publicId',
      ({ set }) => {
        Object.assign(set.headers, PAGE_HEADERS)
        return pages.dashboard
      },
      {
        params: PublicIdParams,
        query: DashboardPageQuery,
        detail: {
          summary: 'Embedded published dashboard (web page)',
          description:
            'Frame it in your app with the session id from generate-session. The page exchanges the session for an embed ' +
            "token, shows the widgets with the viewer's access and, per `showDashboardChat`, the AI chat. The page is 200 " +
            'whatever the session: an unknown, used, expired or revoked one is said in the page.',
          tags: ['Embed pages'],
          security: [],
        },
      },
    )
    .get(
      '/embed/chat',
      ({ set }) => {
        Object.assign(set.headers, PAGE_HEADERS)
        return pages.chat
      },
      {
        query: ChatPageQuery,
        detail: {
          summary: 'Standalone embedded chat (web page)',
          description:
            'Frame it in your app with the session id from generate-session. Not affected by `showDashboardChat`. The page ' +
            'is 200 whatever the session: an unknown, used, expired or revoked one is said in the page.',
          tags: ['Embed pages'],
          security: [],
        },
      },
    )
    .get(
      `${ASSET_PREFIX}/:file`,
      ({ params, headers }) => {
        const asset = assets.get(params.file)
        if (!asset) throw new NotFoundError('No such asset', 'ASSET_NOT_FOUND')
        const gzip = /\bgzip\b/i.test(headers['accept-encoding'] ?? '')
        return new Response(gzip ? (asset.gzip ??= new Uint8Array(Bun.gzipSync(asset.body))) : asset.body, {
          headers: {
            'content-type': asset.contentType,
            ...(gzip && { 'content-encoding': 'gzip' }),
            vary: 'accept-encoding',
            'cache-control': asset.cacheControl,
            'x-content-type-options': 'nosniff',
            'cross-origin-resource-policy': 'same-origin',
          },
        })
      },
      {
        params: AssetParams,
        detail: { summary: "The embed pages' script, stylesheet and icon", tags: ['Embed pages'], security: [] },
      },
    )
}

/** What the embed pages read with their embed token: the session's context, the dashboard and its widgets' data. */
function embedDataRoutes(
  deps: WebDeps,
  contextOf: ReturnType<typeof createEmbedContextReader>,
  dashboards: EmbedDashboards,
) {
  return new Elysia({ name: 'web-embed-data', seed: deps.instanceId })
    .use(embedViewerPlugin(deps))
    .get('/api/v1/embed/session/context', ({ viewer }) => contextOf(viewer), {
      embedViewer: true,
      response: { 200: EmbedContext },
      detail: {
        summary: "The embed session's context",
        description:
          'For the embed pages: the account name and agent that make up the chat URL, the deployment, the user profile ' +
          '(`displayName`, `picture`), the effective `showDashboardChat` (the session value, else the account setting) and the token expiry.',
        tags: ['Embed'],
        security: EMBED_TOKEN,
      },
    })
    .get(
      '/api/v1/embed/dashboards/:publicId',
      async ({ viewer, params }) => dashboards.dashboard(viewer, params.publicId),
      {
        embedViewer: true,
        params: PublicIdParams,
        response: { 200: EmbedDashboard },
        detail: {
          summary: 'A published dashboard, for its embed viewer',
          description:
            "404 unless the dashboard is published on the session's deployment. Widget queries are not included.",
          tags: ['Embed'],
          security: EMBED_TOKEN,
        },
      },
    )
    .get(
      '/api/v1/embed/dashboards/:publicId/widgets/:widgetId/data',
      async ({ viewer, params, query, set }) => {
        // A viewer reads only "This chart could not be loaded" and the request id: the reason goes to the log.
        try {
          return await widgetResponse(dashboards, viewer, params, query, set)
        } catch (error) {
          if (!(error instanceof UnauthorizedError))
            deps.logger.warn('dashboard widget could not be loaded', {
              requestId: set.headers['x-request-id'],
              publicId: params.publicId,
              widgetId: params.widgetId,
              error: error instanceof Error ? error.message : String(error),
            })
          throw error
        }
      },
      {
        embedViewer: true,
        params: EmbedWidgetParams,
        query: EmbedWidgetDataQuery,
        response: { 200: t.Union([EmbedWidgetData, t.String({ description: 'text/csv with format=csv' })]) },
        detail: {
          summary: "A widget's data, with the viewer's access",
          description:
            "Runs the widget's query with the session's row-level security. JSON (what the page draws, up to 1,000 rows) " +
            'or `format=csv`, a download of the whole result, 403 `DATA_DOWNLOAD_RESTRICTED` when the dashboard has `restrictDataDownload`.',
          tags: ['Embed'],
          security: EMBED_TOKEN,
        },
      },
    )
}

/** A widget's rows as JSON, or its whole result as a CSV download. */
async function widgetResponse(
  dashboards: EmbedDashboards,
  viewer: EmbedCaller,
  params: { publicId: string; widgetId: string },
  query: { format?: 'json' | 'csv'; controls?: string },
  set: { headers: Record<string, unknown> },
) {
  const controls = parseControls(query.controls)
  if (query.format !== 'csv') return dashboards.widgetData(viewer, params.publicId, params.widgetId, controls)
  const { widget, data, columns } = await dashboards.widgetDownload(viewer, params.publicId, params.widgetId, controls)
  const filename = `${widget.title.replace(/[^A-Za-z0-9._-]+/g, '_') || widget.id}.csv`
  Object.assign(set.headers, {
    'content-type': 'text/csv; charset=utf-8',
    'content-disposition': `attachment; filename="${filename}"`,
    'cache-control': 'no-store',
  })
  return toCsv(readableColumns(data, columns))
}
