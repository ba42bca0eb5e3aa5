import { Type } from '@sinclair/typebox'
import { t } from 'elysia'
import {
  AnswerSource,
  DashboardFilter,
  DashboardTimeGrain,
  DashboardWidgetKind,
  Nullable,
  WidgetSize,
} from '../management/model'
import { SqlResult } from '../semantic/model'

/** Wire shapes of the embed pages' routes. The front end imports the types only. */

/** What a page needs to know about its session: `GET /api/v1/embed/session/context`. */
export const EmbedContext = t.Object({
  accountName: t.String(),
  deployment: t.Object({ id: t.Integer(), name: t.String() }),
  agent: Nullable(
    t.Object({
      id: t.Integer(),
      name: t.String(),
      /** `/api/v1/public/{accountName}/agents/{agentId}/chat`: append `/stream-chat-state` or `/abort`. */
      chatPath: t.String(),
    }),
  ),
  user: t.Object({
    displayName: Nullable(t.String()),
    /** An absolute http(s) URL the browser loads itself; null when none was given or it is not http(s). */
    picture: Nullable(t.String()),
  }),
  settings: t.Object({
    showDashboardChat: t.Boolean({ description: "The session's value when it set one, else the account-wide setting" }),
  }),
  expiresAt: t.String({ format: 'date-time', description: 'When the embed token stops working' }),
  creator: t.Boolean({
    description: "Whether the session may build its embed tenant's dashboards from chat answers (creator mode)",
  }),
  starterQuestions: t.Array(t.String(), {
    description: "Questions an empty chat offers, built from the members of the deployment's model this user may see",
  }),
})
export type EmbedContext = typeof EmbedContext.static

/** A widget's chart as the embed API names it: `kpi` is the management API's `number`. */
export const WidgetChart = t.Union([t.Literal('line'), t.Literal('bar'), t.Literal('table'), t.Literal('kpi')])
export type WidgetChart = typeof WidgetChart.static

export const EmbedWidget = t.Object({
  id: t.String(),
  kind: DashboardWidgetKind,
  chart: WidgetChart,
  title: t.String(),
  /** Its place on the dashboard, from 0. */
  position: t.Integer({ minimum: 0 }),
  /** Set on widgets built from answers; other widgets take the room their kind needs. */
  size: t.Optional(WidgetSize),
  period: t.Optional(
    t.Object(
      { label: t.String(), member: t.String() },
      { description: 'A period relative to the data ("the last 6 months"), moved forward as the data grows' },
    ),
  ),
  /** The chat answer it was made from; shown to the sessions that may change the dashboard only. */
  source: t.Optional(AnswerSource),
})
export type EmbedWidget = typeof EmbedWidget.static

/** A widget as a change left it, with the dashboard's new checksum (send it with the next change). */
export const SavedEmbedWidget = t.Object({ ...EmbedWidget.properties, checksum: t.String() })
export type SavedEmbedWidget = typeof SavedEmbedWidget.static

const Granularity = DashboardTimeGrain.properties.granularity

/** A published dashboard as its viewers see it: no queries, no management fields. */
export const EmbedDashboard = t.Object({
  publicId: t.String(),
  name: t.String(),
  /** The same as `name`: what `POST /api/v1/embed/dashboards` calls it. */
  title: t.String(),
  /** Changes with every change; a change sent with an older one is 409 `DASHBOARD_CHANGED`. */
  checksum: t.String(),
  /** Whether this session may change it: a creator-mode session of the embed tenant that made it. */
  editable: t.Boolean(),
  restrictDataDownload: t.Boolean(),
  widgets: t.Array(EmbedWidget),
  filters: t.Array(
    t.Object({
      member: t.String(),
      title: t.String(),
      operator: DashboardFilter.properties.operator,
      values: t.Array(t.String(), { description: "The dashboard's values; the viewer may choose others" }),
      choices: t.Optional(
        t.Array(t.String(), { description: 'For equals/notEquals on text: the values this viewer may see' }),
      ),
    }),
  ),
  timeGrains: t.Array(t.Object({ member: t.String(), title: t.String(), granularity: Granularity })),
  locked: t.Array(
    t.Object(
      { name: t.String(), title: t.String(), value: t.String() },
      { description: 'A user attribute the session fixed: no control changes it' },
    ),
  ),
})
export type EmbedDashboard = typeof EmbedDashboard.static

/** A widget's rows, with each column's title from the model (`Revenue` for `MEASURE(orders.total_amount)`). */
export const EmbedWidgetData = t.Object({
  ...SqlResult.properties,
  titles: t.Array(t.String(), { description: "One per column of `schema`: the model's title of the member it shows" }),
  period: t.Optional(
    t.Object(
      { label: t.String(), from: t.String(), to: t.String() },
      { description: 'A relative period as it reads today: `the last 6 months`, 2025-07-01 to 2025-12-31' },
    ),
  ),
})
export type EmbedWidgetData = typeof EmbedWidgetData.static

export const PublicIdParams = t.Object({ publicId: t.String({ minLength: 1, maxLength: 100 }) })
/** A chapter of the docs: `configuration`, or `configuration.md` for its Markdown. */
export const DocsChapterParams = t.Object({ name: t.String({ minLength: 1, maxLength: 100 }) })
export const EmbedWidgetParams = t.Object({
  publicId: t.String({ minLength: 1, maxLength: 100 }),
  widgetId: t.String({ minLength: 1, maxLength: 64 }),
})

/** The viewer's choices for the dashboard's filters and time grains, by member. */
export const ViewerControlsSchema = t.Object(
  {
    filters: t.Optional(
      t.Record(t.String({ maxLength: 200 }), t.Array(t.String({ maxLength: 1000 }), { maxItems: 200 })),
    ),
    timeGrains: t.Optional(t.Record(t.String({ maxLength: 200 }), Granularity)),
  },
  { additionalProperties: false },
)

export const EmbedWidgetDataQuery = t.Object({
  format: t.Optional(
    t.Union([t.Literal('json'), t.Literal('csv')], {
      description: '`csv` is a download: refused when the dashboard restricts data download',
    }),
  ),
  controls: t.Optional(
    t.String({
      maxLength: 20_000,
      description:
        'JSON: new values for the dashboard\'s own filters and grains, e.g. `{"filters":{"orders.status":["completed"]},"timeGrains":{"orders.created_at":"quarter"}}`. ' +
        'Members the dashboard does not filter on are ignored; 400 `INVALID_CONTROLS` for anything else malformed.',
    }),
  ),
})

// Page queries are not validated: a page answers with HTML that explains a bad link, never with a JSON 400.
export const DashboardPageQuery = t.Object({
  session: t.Optional(t.String({ description: 'The session id from generate-session' })),
  sessionId: t.Optional(t.String({ description: 'Also taken: the parameter name of the chat page' })),
})
export const ChatPageQuery = t.Object({
  sessionId: t.Optional(t.String({ description: 'The session id from generate-session' })),
  session: t.Optional(t.String({ description: 'Also taken: the parameter name of the dashboard page' })),
})

export const AssetParams = t.Object({ file: t.String({ maxLength: 100 }) })

// ---------------------------------------------------------------- dashboards built from chat answers

const WidgetTitle = t.String({ minLength: 1, maxLength: 200 })
const Checksum = t.String({ minLength: 1, maxLength: 128, description: "The dashboard's checksum as you last read it" })

export const NewEmbedDashboard = t.Object({ title: WidgetTitle }, { additionalProperties: false })
export type NewEmbedDashboard = typeof NewEmbedDashboard.static

export const NewEmbedWidget = t.Object(
  {
    chatId: t.String({ minLength: 1, maxLength: 200, description: "A thread of this session's user" }),
    messageId: t.String({
      minLength: 1,
      maxLength: 200,
      description: "A message of the answer (its text or one of its query steps), or the answer's question",
    }),
    title: t.Optional(WidgetTitle),
    chart: t.Optional(WidgetChart),
  },
  { additionalProperties: false },
)
export type NewEmbedWidget = typeof NewEmbedWidget.static

export const WidgetChange = t.Object(
  {
    checksum: Checksum,
    title: t.Optional(WidgetTitle),
    chart: t.Optional(WidgetChart),
    // TypeBox's integer, not Elysia's: that one also takes strings that read as numbers ("1", "1e0").
    position: t.Optional(Type.Integer({ minimum: 0, maximum: 99, description: 'Its new place, from 0' })),
    size: t.Optional(WidgetSize),
  },
  { additionalProperties: false },
)
export type WidgetChange = typeof WidgetChange.static

export const WidgetRemoveQuery = t.Object({ checksum: t.Optional(Checksum) })

export const EmbedDashboardsListQuery = t.Object({
  first: t.Optional(t.Integer({ minimum: 1, maximum: 100, description: 'Page size (default 20)' })),
  after: t.Optional(t.String({ maxLength: 200, description: 'The `endCursor` of the previous page' })),
})
export type EmbedDashboardsListQuery = typeof EmbedDashboardsListQuery.static

export const EmbedDashboardsList = t.Object({
  items: t.Array(
    t.Object({ publicId: t.String(), title: t.String(), widgetCount: t.Integer(), updatedAt: t.String() }),
  ),
  pageInfo: t.Object({ hasNextPage: t.Boolean(), endCursor: Nullable(t.String()) }),
})
export type EmbedDashboardsList = typeof EmbedDashboardsList.static
