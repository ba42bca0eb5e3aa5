import type { Nodes, Root } from 'mdast'
import { fromMarkdown } from 'mdast-util-from-markdown'
import { gfmTableFromMarkdown } from 'mdast-util-gfm-table'
import { gfmTable } from 'micromark-extension-gfm-table'

/**
 * Markdown as CommonMark reads it (micromark), with GitHub's tables, as a syntax tree (mdast): what the answers, the
 * README and the docs are drawn from. Raw HTML in the text stays an `html` node, which is drawn as its text.
 */
export function parseMarkdown(text: string): Root {
  return fromMarkdown(text, { extensions: [gfmTable()], mdastExtensions: [gfmTableFromMarkdown()] })
}

/** Calls `enter` on every node of a tree, parents before their children, in document order. */
export function visit(node: Nodes, enter: (node: Nodes) => void): void {
  enter(node)
  if ('children' in node) for (const child of node.children) visit(child, enter)
}

/** The link definitions of a tree (`[name]: https://...`), by their normalised label, for its reference links. */
export function definitionsOf(tree: Root): Map<string, string> {
  const definitions = new Map<string, string>()
  visit(tree, (node) => {
    // The first definition of a label wins, as CommonMark has it.
    if (node.type === 'definition' && !definitions.has(node.identifier)) definitions.set(node.identifier, node.url)
  })
  return definitions
}
