import { t } from 'elysia'
import { DashboardFilter, DashboardTimeGrain, DashboardWidgetKind, Nullable } from '../management/model'
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
  starterQuestions: t.Array(t.String(), {
    description: "Questions an empty chat offers, built from the members of the deployment's model this user may see",
  }),
})
export type EmbedContext = typeof EmbedContext.static

export const EmbedWidget = t.Object({ id: t.String(), kind: DashboardWidgetKind, title: t.String() })
export type EmbedWidget = typeof EmbedWidget.static

const Granularity = DashboardTimeGrain.properties.granularity

/** A published dashboard as its viewers see it: no queries, no management fields. */
export const EmbedDashboard = t.Object({
  publicId: t.String(),
  name: t.String(),
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
})

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
