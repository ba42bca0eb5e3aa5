/** Markdown tables (GitHub's form: a header row, a `---` row with `:` for alignment, body rows), read as cells. */

export type Align = 'left' | 'right' | 'center' | undefined

/** A row's cells, trimmed; `\|` is a pipe inside a cell, not a border. */
export function splitRow(line: string): string[] {
  const trimmed = line
    .trim()
    .replace(/^\|/, '')
    .replace(/(?<!\\)\|$/, '')
  return trimmed.split(/(?<!\\)\|/).map((cell) => cell.trim().replace(/\\\|/g, '|'))
}

export function isSeparator(line: string): boolean {
  return /^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$/.test(line)
}

export function alignments(line: string): Align[] {
  return splitRow(line).map((cell) =>
    cell.startsWith(':') && cell.endsWith(':') ? 'center' : cell.endsWith(':') ? 'right' : undefined,
  )
}

export interface MarkdownTable {
  headers: string[]
  align: Align[]
  /** Each row has as many cells as there are headers (missing ones are empty). */
  rows: string[][]
}

/** The first table of a text, or undefined when it has none. Its cells are Markdown still (`**Europe**`). */
export function firstTable(text: string): MarkdownTable | undefined {
  const lines = text.replace(/\r\n?/g, '\n').split('\n')
  for (let index = 0; index + 1 < lines.length; index++) {
    if (!lines[index].trimStart().startsWith('|') || !isSeparator(lines[index + 1])) continue
    const headers = splitRow(lines[index])
    const rows: string[][] = []
    for (let row = index + 2; row < lines.length && lines[row].trimStart().startsWith('|'); row++) {
      const cells = splitRow(lines[row])
      rows.push(headers.map((_, column) => cells[column] ?? ''))
    }
    return { headers, align: alignments(lines[index + 1]), rows }
  }
  return undefined
}
