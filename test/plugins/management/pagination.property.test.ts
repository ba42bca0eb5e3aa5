import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import fc from 'fast-check'
import { D1, managementApp, type ManagementApp } from './helpers'

/**
 * Walking a list page by page, while other items are added between pages, yields every item that existed
 * when the walk began exactly once and in the list's order, whatever the page size and sort.
 */
let app: ManagementApp
beforeAll(() => {
  app = managementApp()
})
afterAll(() => app.close())

const lists = [
  { path: 'reports', sortBy: 'name', create: (name: string) => ({ name, query: 'SELECT 1' }) },
  { path: 'reports', sortBy: 'createdAt', create: (name: string) => ({ name, query: 'SELECT 1' }) },
  { path: 'reports', sortBy: 'updatedAt', create: (name: string) => ({ name, query: 'SELECT 1' }) },
  { path: 'folders', sortBy: 'name', create: (name: string) => ({ name }) },
  { path: 'folders', sortBy: 'createdAt', create: (name: string) => ({ name }) },
  { path: 'workbooks', sortBy: 'name', create: (name: string) => ({ name }) },
] as const

// Names as the API takes them: not blank (a name of only white space is refused).
const visibleName = fc.string({ minLength: 1, maxLength: 6 }).filter((text) => /\S/.test(text))

describe('cursor pagination', () => {
  it('yields every existing item exactly once, in order, while items are added between pages', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...lists),
        fc.constantFrom('asc', 'desc'),
        fc.array(visibleName, { minLength: 0, maxLength: 25 }),
        fc.integer({ min: 1, max: 7 }),
        fc.array(fc.array(visibleName, { maxLength: 3 }), { maxLength: 30 }),
        fc.array(fc.nat({ max: 2000 }), { maxLength: 30 }),
        async (list, sortOrder, names, first, additions, clockSteps) => {
          // Each run works in a fresh deployment-wide state: delete what the previous run created.
          const { folders, reports, workbooks } = app.storage.tables
          await app.storage.transaction(async (tx) => {
            await tx.delete(reports)
            await tx.delete(folders)
            await tx.delete(workbooks)
          })
          for (const [index, name] of names.entries()) {
            app.clock.advance(clockSteps[index] ?? 0)
            expect((await app.call('POST', `${D1}/${list.path}`, list.create(name))).status).toBe(201)
          }
          const base = `${D1}/${list.path}?sortBy=${list.sortBy}&sortOrder=${sortOrder}`
          const expected = (await app.call('GET', `${base}&first=100`)).body.items.map(
            (item: { id: number }) => item.id,
          )
          const seen: number[] = []
          const order: number[] = []
          let after: string | null = null
          for (let page = 0; page < 200; page++) {
            const response = await app.call('GET', `${base}&first=${first}${after ? `&after=${after}` : ''}`)
            expect(response.status).toBe(200)
            expect(response.body.items.length).toBeLessThanOrEqual(first)
            for (const item of response.body.items) seen.push(item.id)
            order.push(...response.body.items.map((item: { id: number }) => item.id))
            for (const name of additions[page] ?? []) {
              app.clock.advance(clockSteps[page] ?? 0)
              await app.call('POST', `${D1}/${list.path}`, list.create(name))
            }
            if (!response.body.pageInfo.hasNextPage) break
            after = response.body.pageInfo.endCursor
          }
          expect(new Set(seen).size).toBe(seen.length)
          const original = new Set(expected)
          expect(order.filter((id) => original.has(id))).toEqual(expected)
        },
      ),
      { numRuns: 60 },
    )
    // Sixty walks take a second or two alone; a busy machine may need more.
  }, 30_000)
})
