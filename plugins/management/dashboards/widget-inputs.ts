import { BadRequestError } from '../../../lib/errors'
import { randomToken } from '../../../lib/secrets'
import { widgetFromAnswer } from './answer-widgets'
import type { ManagementContext } from '../access/context'
import type { DashboardWidget, DashboardWidgetInput } from '../model'
import type { WidgetQueryCheck } from './query-check'
import { hasPeriodRange } from './relative-period'

/** A widget input as given or as made from its answer: everything but the id it may still lack. */
export type ResolvedWidgetInput = DashboardWidgetInput & Omit<DashboardWidget, 'id'>

/**
 * Refuses widgets whose query cannot run, naming the widget, so a broken chart is caught by whoever saves the
 * dashboard instead of being shown to its viewers.
 */
export function checkWidgetQueries(widgets: DashboardWidget[], check: WidgetQueryCheck | undefined): void {
  if (!check) return
  widgets.forEach((widget, index) => {
    try {
      check(widget.query)
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error)
      throw new BadRequestError(
        `widgets[${index}] "${widget.title}" (id ${widget.id}): its query cannot run: ${reason}`,
        'INVALID_WIDGET_QUERY',
      )
    }
  })
}

/** A new widget id. */
export const newWidgetId = () => `w_${randomToken(6)}`

/**
 * Each widget input as a widget without its id: as given (`kind`, `title`, `query`), or made from the chat answer
 * its `source` names (a thread of this deployment; `kind` and `title` override the answer's). A `period` given with
 * a query must name a time member the query bounds on both sides.
 */
export async function resolveWidgetInputs(
  context: ManagementContext,
  inputs: DashboardWidgetInput[],
): Promise<ResolvedWidgetInput[]> {
  const resolved = []
  for (const [index, input] of inputs.entries()) {
    if (input.query !== undefined) {
      if (input.kind === undefined || input.title === undefined)
        throw new BadRequestError(`widgets[${index}]: a widget with a query needs its kind and title`, 'INVALID_WIDGET')
      if (input.period && !hasPeriodRange(input.query, input.period.member))
        throw new BadRequestError(
          `widgets[${index}].period: the query bounds no date range on ${input.period.member} to keep relative`,
          'INVALID_WIDGET',
        )
      resolved.push({ ...input, kind: input.kind, title: input.title, query: input.query })
      continue
    }
    if (!input.source)
      throw new BadRequestError(
        `widgets[${index}]: give a widget its kind, title and query, or the chat answer it is made from (source)`,
        'INVALID_WIDGET',
      )
    if (input.period)
      throw new BadRequestError(
        `widgets[${index}].period: a widget made from an answer takes the answer's period`,
        'INVALID_WIDGET',
      )
    const answer = await widgetFromAnswer(context.db, context.storage.tables, context, input.source)
    resolved.push({ ...input, ...answer, kind: input.kind ?? answer.kind, title: input.title ?? answer.title })
  }
  return resolved
}

/** Gives widgets without an id one, and refuses two widgets with the same id. */
export function normalizeWidgets(inputs: ResolvedWidgetInput[]): DashboardWidget[] {
  const seen = new Set<string>()
  return inputs.map((input, index) => {
    const id = input.id ?? newWidgetId()
    if (seen.has(id))
      throw new BadRequestError(`widgets[${index}].id: duplicate widget id "${id}"`, 'DUPLICATE_WIDGET_ID')
    seen.add(id)
    return {
      id,
      kind: input.kind,
      title: input.title,
      query: input.query,
      ...(input.size && { size: input.size }),
      ...(input.source && { source: input.source }),
      ...(input.period && { period: input.period }),
    }
  })
}
