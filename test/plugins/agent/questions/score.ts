import type { Database } from 'bun:sqlite'
import type { Cell, Question } from './types'

const TWO = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })
const WHOLE = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 })

/** An expected value written the way an answer writes it. */
export function writeCell(value: unknown, cell: Cell): string {
  if (cell === 'text' || value === null || typeof value !== 'number') return String(value)
  if (cell === 'pct') return `${value.toFixed(1)}%`
  if (cell === 'count') return WHOLE.format(value)
  return TWO.format(value)
}

/** The expected rows of a question, as written cells. */
export function expectedRows(data: Database, question: Question): string[][] {
  const rows = data.query(question.sql!).values() as unknown[][]
  return rows.map((row) => {
    const cells = question.cells ?? [...row.slice(0, -1).map(() => 'text' as const), 'money' as const]
    return row.map((value, index) => writeCell(value, cells[index] ?? 'text'))
  })
}

/** The data rows of the answer's markdown tables (header and rule lines left out), cells unformatted. */
export function tableRows(answer: string): string[][] {
  const rows: string[][] = []
  let header = true
  for (const line of answer.split('\n')) {
    if (!line.startsWith('|')) {
      header = true
      continue
    }
    if (header || /^\|[\s:|-]+\|$/.test(line)) {
      header = false
      continue
    }
    const cells = line
      .slice(1, -1)
      .split(/(?<!\\)\|/)
      .map((cell) => cell.trim().replace(/\*\*/g, '').replace(/^\+/, '').replace(/\\\|/g, '|'))
    rows.push(cells)
  }
  return rows
}

export type Outcome = 'right' | 'declined' | 'wrong'

/**
 * Scores one answer: right when it says what was computed (a bold heading) and its table holds every expected row
 * and at most one more (say, a total), or says it shows part of as many rows as expected and shows only expected ones; for `first` questions (which one ...?), when the table's first row is the
 * expected one, whatever ranking follows it. A decline is an answer without a table; anything else answered a
 * different question.
 */
export function score(
  answer: string,
  expected: string[][] | undefined,
  first = false,
): { outcome: Outcome; why: string } {
  const rows = tableRows(answer)
  if (!expected)
    return rows.length === 0
      ? { outcome: 'right', why: '' }
      : { outcome: 'wrong', why: 'answered a question it should decline' }
  if (rows.length === 0) return { outcome: 'declined', why: 'declined' }
  if (!answer.startsWith('**')) return { outcome: 'wrong', why: 'does not start by saying what was computed' }
  const has = (row: string[], cells: string[]) => cells.every((cell) => row.includes(cell))
  if (first)
    return has(rows[0], expected[0])
      ? { outcome: 'right', why: '' }
      : { outcome: 'wrong', why: `first row is not ${expected[0].join(' | ')}` }
  // More rows than an answer holds: right when it says it shows part of them, of as many as expected, and each row it
  // shows is an expected one.
  const part = /\nShowing (\d[\d,]*) of (\d[\d,]*) rows\b/.exec(answer)
  if (part && Number(part[2].replace(/,/g, '')) === expected.length) {
    const stray = rows.find((row) => !expected.some((cells) => has(row, cells)))
    return stray ? { outcome: 'wrong', why: `unexpected row ${stray.join(' | ')}` } : { outcome: 'right', why: '' }
  }
  for (const cells of expected)
    if (!rows.some((row) => has(row, cells))) return { outcome: 'wrong', why: `missing ${cells.join(' | ')}` }
  if (rows.length > expected.length + 1)
    return { outcome: 'wrong', why: `${rows.length} rows for ${expected.length} expected` }
  return { outcome: 'right', why: '' }
}
