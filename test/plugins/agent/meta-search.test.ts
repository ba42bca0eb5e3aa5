import { describe, expect, it } from 'bun:test'
import { searchMeta } from '../../../plugins/agent/meta-search'
import type { AnalystTools } from '../../../plugins/agent/tool-calls'

/** `serviceMeta` with a search, over tools that record the queries it runs and answer from a list of values. */
function searchOf(values: string[]) {
  const queries: string[] = []
  const meta = {
    cubes: [
      {
        name: 'classes',
        dimensions: [
          { name: 'classes.id', type: 'number', primaryKey: true },
          { name: 'classes.name', type: 'string' },
        ],
      },
    ],
  }
  const tools = {
    serviceMeta: async () => meta,
    serviceSqlApi: async ({ sqlQuery }: { sqlQuery: string }) => {
      queries.push(sqlQuery)
      const terms = [...sqlQuery.matchAll(/ILIKE '%(.*?)%'/g)].map((match) => match[1])
      return {
        data: values.filter((value) => terms.some((term) => value.toLowerCase().includes(term))).map((v) => [v]),
      }
    },
  } as unknown as AnalystTools
  return {
    queries,
    search: (query: string) => searchMeta(tools, { searchQuery: query }) as Promise<{ values: unknown[] }>,
  }
}

describe('the search for values', () => {
  it('searches a code of a letter and a digit ("8B"), and no other word under three letters', async () => {
    const { queries, search } = searchOf(['7A', '8B', 'Bay'])
    expect((await search('8b')).values).toEqual([{ member: 'classes.name', value: '8B' }])
    queries.length = 0
    expect((await search('by 42')).values).toEqual([])
    expect(queries.some((query) => query.includes('ILIKE'))).toBe(false)
  })
})
