import { describe, expect, it } from 'bun:test'
import { decide } from '../../../plugins/agent/offline/decide'
import { runAnalyst } from './run-analyst'
import { indexMeta } from '../../../plugins/agent/offline/meta-index'

/**
 * The offline analyst on a small library model that is not the demo's: its words come from this model (titles,
 * labels, synonyms, descriptions), "revenue" is the money it sums, and its declines name its titles.
 */
const member = (cube: string, name: string, type: string, extra: Record<string, unknown> = {}) => ({
  name: `${cube}.${name}`,
  type,
  ...extra,
})
const libraryMeta = {
  cubes: [
    {
      name: 'loans',
      title: 'Loans',
      joins: [
        { name: 'members', relationship: 'many_to_one' },
        { name: 'books', relationship: 'many_to_one' },
        { name: 'desks', relationship: 'many_to_one' },
      ],
      measures: [
        member('loans', 'count', 'count', { title: 'Number of loans', synonyms: ['checkouts', 'borrowings'] }),
        member('loans', 'total_late_fee', 'sum', { title: 'Late fees', format: 'currency' }),
        member('loans', 'total_discount', 'sum', { title: 'Fee discounts', format: 'currency' }),
        member('loans', 'distinct_member', 'count_distinct', { title: 'Number of different members' }),
      ],
      dimensions: [
        member('loans', 'id', 'number', { primaryKey: true, title: 'Loan id' }),
        member('loans', 'borrowed_at', 'time', { title: 'Loan date' }),
        member('loans', 'returned_at', 'time', { title: 'Return date' }),
      ],
    },
    {
      name: 'members',
      title: 'Members',
      label: 'full_name',
      joins: [],
      measures: [member('members', 'count', 'count', { title: 'Number of members' })],
      dimensions: [
        member('members', 'id', 'number', { primaryKey: true, title: 'Member id' }),
        member('members', 'full_name', 'string', { title: 'Member' }),
        member('members', 'title', 'string', { title: 'Title', description: 'Honorific: Mr, Ms, Dr' }),
        member('members', 'branch', 'string', { title: 'Home branch' }),
      ],
    },
    {
      name: 'books',
      title: 'Books',
      joins: [],
      measures: [member('books', 'count', 'count', { title: 'Number of books' })],
      dimensions: [
        member('books', 'id', 'number', { primaryKey: true, title: 'Book id' }),
        member('books', 'title', 'string', { title: 'Title' }),
        member('books', 'genre', 'string', { title: 'Genre' }),
        member('books', 'shelf', 'string', { title: 'Shelf' }),
        member('books', 'shelve', 'string', { title: 'Shelve' }),
        member('books', 'running_length', 'number', { title: 'Audio length' }),
      ],
    },
    {
      // A bridge table: its noun is "books", but its rows are books on reading lists.
      name: 'list_books',
      title: 'List books',
      joins: [
        { name: 'books', relationship: 'many_to_one' },
        { name: 'reading_lists', relationship: 'many_to_one' },
      ],
      measures: [
        member('list_books', 'count', 'count', { title: 'Number of list books' }),
        member('list_books', 'distinct_book', 'count_distinct', { title: 'Distinct books' }),
      ],
      dimensions: [
        member('list_books', 'list_id', 'number', { primaryKey: true, title: 'List id' }),
        member('list_books', 'book_id', 'number', { primaryKey: true, title: 'Book id' }),
      ],
    },
    {
      name: 'reading_lists',
      title: 'Reading lists',
      joins: [],
      measures: [member('reading_lists', 'count', 'count', { title: 'Number of reading lists' })],
      dimensions: [
        member('reading_lists', 'id', 'number', { primaryKey: true, title: 'List id' }),
        member('reading_lists', 'name', 'string', { title: 'Reading list' }),
      ],
    },
    {
      // Nothing names a desk but its key.
      name: 'desks',
      title: 'Desks',
      joins: [],
      measures: [member('desks', 'count', 'count', { title: 'Number of desks' })],
      dimensions: [member('desks', 'id', 'number', { primaryKey: true, title: 'Desk id' })],
    },
    {
      name: 'payments',
      title: 'Payments',
      joins: [{ name: 'members', relationship: 'many_to_one' }],
      measures: [
        member('payments', 'count', 'count', { title: 'Number of payments' }),
        member('payments', 'total_amount', 'sum', { title: 'Amount paid', format: 'currency' }),
      ],
      dimensions: [
        member('payments', 'id', 'number', { primaryKey: true, title: 'Payment id' }),
        member('payments', 'paid_at', 'time', { title: 'Payment date' }),
      ],
    },
  ],
}

/** Runs the analyst to its answer: the meta, a search that finds nothing, and one row for every query. */
const run = (question: string | string[], data: string[][] = [['Ann Lee', '1', '7']]) =>
  runAnalyst(libraryMeta, question, {
    search: { ...libraryMeta, values: [], dates: [{ member: 'loans.borrowed_at', latest: '2025-06-30' }] },
    data,
  })

describe('the offline analyst on a model it was not grown on', () => {
  it('reads "revenue" as the money the model sums, never a discount', () => {
    const { text, queries } = run('Revenue by genre')
    expect(queries).toEqual([expect.stringContaining('MEASURE(loans.total_late_fee)')])
    expect(text).toStartWith('**Late fees by Genre, all time**')
  })

  it('reads the synonyms the model gives', () => {
    const { queries } = run('How many checkouts by home branch?')
    expect(queries).toEqual([expect.stringContaining('MEASURE(loans.count)')])
    expect(queries[0]).toContain('members.branch')
  })

  it("groups rows by their key and shows them by the cube's label", () => {
    const { queries } = run('Top 3 members by number of loans')
    expect(queries[0]).toContain('members.id AS id, members.full_name AS full_name')
  })

  it('keeps the title of a dimension named title: a book title is a Title, not a "Book"', () => {
    const index = indexMeta(libraryMeta)
    expect(index.members.get('books.title')?.title).toBe('Title')
    expect(index.members.get('members.title')?.title).toBe('Title')
  })

  it('reads a misspelled word as the model word it is one letter from, and says so', () => {
    const { text, queries } = run('Number of loans by genere')
    expect(queries[0]).toContain('books.genre')
    expect(text).toContain('I read "genere" as "genre".')
  })

  it('asks which was meant when a word is as near to two words of the model', () => {
    const { text, queries } = run('Number of books by shelfe')
    expect(queries).toEqual([])
    expect(text).toContain('did you mean "shelf" or "shelve"?')
  })

  it('says a tie for the top, and shows a row level with the last asked for', () => {
    const { text, queries } = run('Which genre has the most loans?', [
      ['Fantasy', '7'],
      ['Crime', '7'],
    ])
    expect(queries[0]).toEndWith('LIMIT 2')
    expect(text).toContain('**Fantasy** and **Crime** tie for highest with **7**.')
    expect(text).toContain('| Crime | 7 |')
    const three = run('Top 2 genres by number of loans', [
      ['Fantasy', '9'],
      ['Crime', '7'],
      ['Poetry', '7'],
    ]).text
    expect(three).toContain('Poetry ties with Crime (7), so both are shown.')
    expect(three).toContain('| Poetry | 7 |')
    const apart = run('Top 2 genres by number of loans', [
      ['Fantasy', '9'],
      ['Crime', '7'],
      ['Poetry', '5'],
    ]).text
    expect(apart).not.toContain('Poetry')
  })

  it("counts the things the question names, never a bridge table's rows or another table's", () => {
    expect(run('How many books in each genre?').queries).toEqual([expect.stringContaining('MEASURE(books.count)')])
    expect(run('Which reading list has the most books?').queries).toEqual([
      expect.stringContaining('MEASURE(list_books.count)'),
    ])
    // Books do not reach members: counting the loans (which reach both) would answer another question.
    const unlinked = run('Number of books by home branch')
    expect(unlinked.queries).toEqual([])
    expect(unlinked.text).toContain('the model does not link books to home branch')
  })

  it('counts things through a bridge table as the distinct things it names', () => {
    expect(run('How many books are on each reading list?').queries).toEqual([
      expect.stringContaining('MEASURE(list_books.distinct_book)'),
    ])
  })

  it('breaks down by the key of things nothing else names', () => {
    expect(run('Number of loans by desk').queries).toEqual([expect.stringContaining('desks.id AS id')])
  })

  it('sums money things asked for in total, and counts them when asked how many', () => {
    expect(run('Top 3 members by total payments').queries).toEqual([
      expect.stringContaining('MEASURE(payments.total_amount)'),
    ])
    expect(run('How many payments were made?').queries).toEqual([expect.stringContaining('MEASURE(payments.count)')])
  })

  it("reads a verb of a table's noun as its rows counted, not as a number named like it", () => {
    const rentalMeta = {
      cubes: [
        {
          name: 'rentals',
          title: 'Rentals',
          joins: [{ name: 'films', relationship: 'many_to_one' }],
          measures: [member('rentals', 'count', 'count', { title: 'Number of rentals' })],
          dimensions: [member('rentals', 'id', 'number', { primaryKey: true })],
        },
        {
          name: 'films',
          title: 'Films',
          joins: [],
          measures: [member('films', 'count', 'count', { title: 'Number of films' })],
          dimensions: [
            member('films', 'id', 'number', { primaryKey: true }),
            member('films', 'name', 'string', { title: 'Film' }),
            member('films', 'rental_duration', 'number', { title: 'Rental duration' }),
          ],
        },
      ],
    }
    const action = decide(
      ['Which film was rented the most?'],
      [
        { name: 'serviceMeta', input: {}, output: rentalMeta },
        { name: 'serviceMeta', input: { searchQuery: 'x' }, output: { ...rentalMeta, values: [], dates: [] } },
      ],
    )
    expect(action.kind === 'tools' ? action.calls.map((call) => call.input.sqlQuery) : []).toEqual([
      expect.stringContaining('MEASURE(rentals.count)'),
    ])
  })

  it('takes only what a follow-up lacks from the thread, says what it took, and keeps the grain of a period', () => {
    const thread = run(['Revenue by genre in Q2 2025', 'and the year before?'])
    expect(thread.queries).toEqual([
      expect.stringContaining("loans.borrowed_at >= '2024-04-01' AND loans.borrowed_at < '2024-07-01'"),
    ])
    expect(thread.text).toStartWith('**Late fees by Genre, Q2 2024**')
    expect(thread.text).toContain('From the question before I kept Late fees, by Genre.')
    // A complete question starts afresh: no genre, no period taken.
    const fresh = run(['Revenue by genre in Q2 2025', 'How many members do we have?'])
    expect(fresh.queries).toEqual(['SELECT MEASURE(members.count) AS count FROM members'])
    expect(fresh.text).not.toContain('From the question before')
  })

  it('never drops a breakdown the question asks for', () => {
    const weather = run('Number of loans by weather')
    expect(weather.queries).toEqual([])
    expect(weather.text).toContain('I could not map "weather"')
    const { text, queries } = run('Number of loans by genre and shelf and title and home branch')
    expect(queries).toEqual([])
    expect(text).toContain('at most three things at once')
  })

  it('lists the things "per" names, and divides by them only when an average is asked', () => {
    const listed = run('Loans per member')
    expect(listed.queries).toHaveLength(1)
    expect(listed.queries[0]).toContain('members.full_name')
    expect(listed.text).not.toContain(' over ')
    const mean = run('Average number of loans per member')
    expect(mean.queries.join(' ')).not.toContain('members.full_name')
    expect(mean.text).toContain('per member')
  })

  it('names a row in the summary by its name, the key beside it left to the table', () => {
    const { text } = run('Loans by member', [
      ['1', 'Ann Lee', '7'],
      ['2', 'Bo Li', '3'],
    ])
    expect(text).toContain('**Ann Lee** is highest')
    expect(text).toContain('| 1 | Ann Lee | 7 |')
  })

  it('reads an empty date said with "never", and a length in hours against a column kept in minutes', () => {
    expect(run('How many loans were never returned?').queries).toEqual([
      'SELECT MEASURE(loans.count) AS count FROM loans WHERE loans.returned_at IS NULL',
    ])
    expect(run('How many books are longer than 2 hours?').queries).toEqual([
      'SELECT MEASURE(books.count) AS count FROM books WHERE books.running_length > 120',
    ])
  })

  it('declines with the titles of the model, never its member ids', () => {
    const { text } = run('What is the weather like in the reading room?')
    expect(text).toStartWith('I could not map that question')
    expect(text).toContain('Number of loans, Late fees, Fee discounts')
    expect(text).not.toMatch(/\b(loans|members|books|list_books|reading_lists)\.[a-z_]+/)
  })
})
