import { decide, type ToolExchange } from '../../../plugins/agent/offline/decide'

/**
 * Runs the offline analyst's decisions to its answer with no server: `serviceMeta` answers `meta` (a search answers
 * `search`, by default the meta with no values and no dates), and every query answers the rows `data`. Returns the
 * answer's text and the queries it asked for (six steps at most; an empty text when it never answered).
 */
export function runAnalyst(
  meta: object,
  question: string | string[],
  { search = { ...meta, values: [], dates: [] }, data = [['1']] }: { search?: object; data?: string[][] } = {},
): { text: string; queries: string[] } {
  const exchanges: ToolExchange[] = []
  const queries: string[] = []
  for (let step = 0; step < 6; step++) {
    const action = decide(Array.isArray(question) ? question : [question], exchanges)
    if (action.kind === 'answer') return { text: action.text, queries }
    for (const call of action.calls) {
      if (call.name === 'serviceMeta') exchanges.push({ ...call, output: call.input.searchQuery ? search : meta })
      else {
        queries.push(String(call.input.sqlQuery))
        exchanges.push({ ...call, output: { schema: [{ name: 'x' }], data, totalRows: data.length } })
      }
    }
  }
  return { text: '', queries }
}
