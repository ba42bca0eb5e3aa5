import { BadRequestError } from '../../../lib/errors'
import { normalizeTime } from '../../semantic/query/query-planner'
import type { DashboardFilter, DashboardTimeGrain } from '../model'
import type { WidgetQueryCheck } from './query-check'

/**
 * Refuses filters and time grains a dashboard could never apply, naming them, as its widgets are: a member the
 * model does not have (or a measure: filters go into WHERE), a time grain on what is not a time, a date range that
 * is not two dates, a second time grain for one member. Such controls were saved and then silently left out of every widget (a dashboard's own, or a
 * notification's, applied when the dashboard runs for it).
 */
export function checkDashboardControls(
  filters: DashboardFilter[],
  timeGrains: DashboardTimeGrain[],
  check: WidgetQueryCheck | undefined,
): void {
  const planned = (at: string, query: string) => {
    if (!check) return
    try {
      check(query)
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error)
      throw new BadRequestError(`${at}: ${reason}`, 'INVALID_DASHBOARD_CONTROL')
    }
  }
  // Quoted: a cube may be named by a reserved word ("order", "group"), which the parser takes quoted only.
  const quoted = (member: string) => {
    const dot = member.indexOf('.')
    return { cube: `"${member.slice(0, dot)}"`, ref: `"${member.slice(0, dot)}"."${member.slice(dot + 1)}"` }
  }
  filters.forEach((filter, index) => {
    const at = `filters[${index}]`
    if (filter.operator === 'inDateRange') {
      if (filter.values.length !== 0 && filter.values.length !== 2)
        throw new BadRequestError(
          `${at}.values: a date range is two dates, from and to (["2024-01-01", "2024-12-31"]), or none`,
          'INVALID_DASHBOARD_CONTROL',
        )
      const wrong = filter.values.find((value) => normalizeTime(value) === undefined)
      if (wrong !== undefined)
        throw new BadRequestError(
          `${at}.values: ${JSON.stringify(wrong)} is not a date; write dates like 2024-01-31`,
          'INVALID_DASHBOARD_CONTROL',
        )
    }
    const { cube, ref } = quoted(filter.member)
    planned(`${at}.member`, `SELECT ${ref} FROM ${cube} WHERE ${ref} IS NULL`)
  })
  // One grain per member: a second would contradict the first, and whichever the dashboard read last would win.
  const grained = new Map<string, number>()
  timeGrains.forEach((grain, index) => {
    const member = grain.member.toLowerCase() // names in a query are read in any case
    const earlier = grained.get(member)
    if (earlier !== undefined)
      throw new BadRequestError(
        `timeGrains[${index}].member: ${grain.member} has a time grain already (timeGrains[${earlier}])`,
        'INVALID_DASHBOARD_CONTROL',
      )
    grained.set(member, index)
    const { cube, ref } = quoted(grain.member)
    planned(`timeGrains[${index}].member`, `SELECT DATE_TRUNC('${grain.granularity}', ${ref}) FROM ${cube}`)
  })
}
