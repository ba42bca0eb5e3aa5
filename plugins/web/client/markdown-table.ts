import type { PhrasingContent, Table } from 'mdast'
import { toString } from 'mdast-util-to-string'
import { parseMarkdown, visit } from './markdown-tree'

/** Markdown tables (GitHub's form: a header row, a `---` row with `:` for alignment, body rows), read as cells. */

export type Align = 'left' | 'right' | 'center' | undefined

export interface MarkdownTable {
  /** Each header's text, its marks gone (`**Europe**` → `Europe`, `A\_B` → `A_B`). */
  headers: string[]
  align: Align[]
  /** Each cell's text, as `headers`; each row has as many cells as there are headers (missing ones are empty). */
  rows: string[][]
  /** The cells as parsed (emphasis, code and links kept), the header row first, each as wide as `headers`. */
  cells: PhrasingContent[][][]
}

/** A table of the tree as cells. */
export function tableOf(node: Table): MarkdownTable {
  const width = node.children[0]?.children.length ?? 0
  const cells = node.children.map((row) =>
    Array.from({ length: width }, (_, column) => row.children[column]?.children ?? []),
  )
  const texts = cells.map((row) => row.map((cell) => toString(cell)))
  return {
    headers: texts[0] ?? [],
    align: Array.from({ length: width }, (_, column) => node.align?.[column] ?? undefined),
    rows: texts.slice(1),
    cells,
  }
}

/** The first table of a text (in a list or a quote too), or undefined when it has none. */
export function firstTable(text: string): MarkdownTable | undefined {
  let found: Table | undefined
  visit(parseMarkdown(text), (node) => {
    if (node.type === 'table') found ??= node
  })
  return found && tableOf(found)
}
