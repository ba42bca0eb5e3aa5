import type { Heading, List, ListItem, Nodes, Paragraph, PhrasingContent, Root, RootContent, TableCell } from 'mdast'
import { toString } from 'mdast-util-to-string'
import { Fragment, type ComponentChildren } from 'preact'
import { tableOf, type MarkdownTable } from './markdown-table'
import { definitionsOf, parseMarkdown, visit } from './markdown-tree'

/**
 * Markdown as CommonMark reads it, with GitHub's tables: answers, the README and the docs. It builds elements from
 * the syntax tree, never HTML strings, so model output cannot inject markup (raw HTML shows as its text, images as
 * their description); links open only http(s) addresses and anchors of the page.
 */
export function Markdown({
  text,
  withoutTables = false,
  document = false,
  streaming = false,
  linkAddress,
}: {
  text: string
  withoutTables?: boolean
  document?: boolean
  /** An answer still arriving: a mark open at its end is closed (see `parseWithMarksClosed`). */
  streaming?: boolean
  /** Where each link of the text goes (undefined: it keeps only its text), when not where it says. */
  linkAddress?: (url: string) => string | undefined
}) {
  // A finished answer and a page are drawn as written.
  const tree = streaming ? parseWithMarksClosed(text) : parseMarkdown(text)
  const options = { withoutTables, document, definitions: definitionsOf(tree), linkAddress, anchors: new Map() }
  return <>{blocks(tree.children, options)}</>
}

/** A heading's anchor as GitHub makes it: `Embedded pages` → `embedded-pages`. */
export function headingId(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s-]/gu, '')
    .trim()
    .replace(/\s/g, '-')
}

/** The text of an answer's bold first words (`**Revenue by region**, 2024 ...`), its title; undefined without. */
export function leadingBold(text: string): string | undefined {
  const first = parseMarkdown(text).children[0]
  const lead = first?.type === 'paragraph' ? first.children[0] : undefined
  return lead?.type === 'strong' ? toString(lead) : undefined
}

/**
 * While an answer streams in, a `**` or a backtick may be open at its end: closed, so the reader sees bold, not
 * asterisks. Only the block the text ends in (a paragraph, a heading, a table's cell) is looked at: marks in a code
 * block or an earlier paragraph are the text's own, and closing them added a stray `**` after its last word.
 */
function parseWithMarksClosed(text: string): Root {
  const tree = parseMarkdown(text)
  const last = lastTextBlock(tree)
  const start = last?.position?.start.offset
  const end = last?.position?.end.offset
  if (!last || start === undefined || end === undefined) return tree
  // A code span's asterisks and backticks are its own: `a ** b` opens no bold.
  let written = text.slice(start, end)
  visit(last, (node) => {
    const span = node.type === 'inlineCode' ? node.position : undefined
    if (span?.start.offset !== undefined && span.end.offset !== undefined)
      written =
        written.slice(0, span.start.offset - start) +
        ' '.repeat(span.end.offset - span.start.offset) +
        written.slice(span.end.offset - start)
  })
  let closed = text.trimEnd()
  if ((written.match(/\*\*/g)?.length ?? 0) % 2 === 1)
    closed = closed.endsWith('**') ? closed.slice(0, -2) : `${closed}**`
  if ((written.match(/`/g)?.length ?? 0) % 2 === 1) closed += '`'
  if (closed === text.trimEnd()) return tree
  // Only the top-level block the text ends in is read again, closed (with the text's link definitions, for its
  // reference links): the whole answer twice cost twice as much on every line streamed in.
  const lastTop = tree.children.at(-1)?.position?.start.offset ?? 0
  const definitions = tree.children
    .filter((node) => node.type === 'definition')
    .map((node) => text.slice(node.position?.start.offset, node.position?.end.offset))
  const again = parseMarkdown([...definitions, closed.slice(lastTop)].join('\n\n')).children
  return { ...tree, children: [...tree.children.slice(0, -1), ...again.filter((node) => node.type !== 'definition')] }
}

/** The block of running text a tree ends in, inside lists, quotes and tables; undefined when it ends otherwise. */
function lastTextBlock(tree: Root): Paragraph | Heading | TableCell | undefined {
  let node: Nodes | undefined = tree.children.at(-1)
  while (node && ['list', 'listItem', 'blockquote', 'table', 'tableRow'].includes(node.type))
    node = (node as { children: Nodes[] }).children.at(-1)
  return node?.type === 'paragraph' || node?.type === 'heading' || node?.type === 'tableCell' ? node : undefined
}

/** A heading's anchor on its page: its `headingId`, with `-1`, `-2`, ... after it for the second and later alike. */
function anchorOf(text: string, anchors: Map<string, number>): string {
  const id = headingId(text)
  const seen = anchors.get(id) ?? 0
  anchors.set(id, seen + 1)
  return seen === 0 ? id : `${id}-${seen}`
}

interface Options {
  /** Leaves tables out: the answer shows its result as a chart with the table one click away. */
  withoutTables: boolean
  /** A page of its own (the README, a chapter of the docs): headings at their own level, with anchors. */
  document: boolean
  /** The text's link definitions, for its reference links. */
  definitions: ReadonlyMap<string, string>
  linkAddress?: (url: string) => string | undefined
  /** How many headings of the page have had each anchor so far: a second `Examples` is `examples-1`, as on GitHub. */
  anchors: Map<string, number>
}

/** A table of an answer, its cells drawn with their marks; it scrolls sideways inside its card when too wide. */
export function TableView({ table, caption }: { table: MarkdownTable; caption?: string }) {
  return tableView(
    table,
    { withoutTables: false, document: false, definitions: new Map(), anchors: new Map() },
    caption,
  )
}

function tableView(table: MarkdownTable, options: Options, caption?: string) {
  const [header = [], ...body] = table.cells
  const alignment = (column: number) => table.align[column] && `align-${table.align[column]}`
  return (
    <div class="table-scroll">
      <table>
        {caption && <caption class="sr-only">{caption}</caption>}
        <thead>
          <tr>
            {header.map((cell, column) => (
              <th scope="col" class={alignment(column)}>
                {phrasing(cell, options)}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {body.map((row) => (
            <tr>
              {row.map((cell, column) => (
                <td class={alignment(column)}>{phrasing(cell, options)}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}

function blocks(nodes: RootContent[], options: Options): ComponentChildren[] {
  return nodes.map((node, index) => block(node, options, index))
}

function block(node: RootContent, options: Options, key: number): ComponentChildren {
  switch (node.type) {
    case 'paragraph':
      return <p key={key}>{phrasing(node.children, options)}</p>
    case 'heading':
      return heading(node, options, key)
    case 'list':
      return list(node, options, key)
    case 'code':
      return (
        <pre key={key}>
          <code>{node.value}</code>
        </pre>
      )
    case 'blockquote':
      return <blockquote key={key}>{blocks(node.children, options)}</blockquote>
    case 'thematicBreak':
      return <hr key={key} />
    case 'table':
      return options.withoutTables ? null : <Fragment key={key}>{tableView(tableOf(node), options)}</Fragment>
    case 'html':
      // Shown as the text it is: markup in an answer is never the page's.
      return <p key={key}>{node.value}</p>
    default:
      // Definitions are read by the links that use them; nothing else is parsed.
      return null
  }
}

function heading(node: Heading, options: Options, key: number): ComponentChildren {
  const content = phrasing(node.children, options)
  if (options.document) {
    const Tag = (['h1', 'h2', 'h3', 'h4', 'h5', 'h6'] as const)[node.depth - 1]
    return (
      <Tag key={key} id={anchorOf(toString(node), options.anchors)}>
        {content}
      </Tag>
    )
  }
  // Headings inside a message stay below the page's own headings.
  const Tag = (['h3', 'h4', 'h5', 'h6'] as const)[Math.min(node.depth, 4) - 1]
  return <Tag key={key}>{content}</Tag>
}

function list(node: List, options: Options, key: number): ComponentChildren {
  const List = node.ordered ? 'ol' : 'ul'
  const start = node.ordered && typeof node.start === 'number' && node.start !== 1 ? node.start : undefined
  return (
    <List key={key} start={start}>
      {node.children.map((item) => (
        <li>{listItem(item, node, options)}</li>
      ))}
    </List>
  )
}

/** A tight list's paragraphs show as their text alone, as CommonMark draws them; a loose list's as paragraphs. */
function listItem(item: ListItem, parent: List, options: Options): ComponentChildren {
  if (parent.spread || item.spread) return blocks(item.children, options)
  return item.children.map((child, index) =>
    child.type === 'paragraph' ? phrasing(child.children, options) : block(child, options, index),
  )
}

function phrasing(nodes: PhrasingContent[], options: Options): ComponentChildren[] {
  return nodes.map((node) => inline(node, options))
}

function inline(node: PhrasingContent, options: Options): ComponentChildren {
  switch (node.type) {
    case 'text':
      return node.value
    case 'strong':
      return <strong>{phrasing(node.children, options)}</strong>
    case 'emphasis':
      return <em>{phrasing(node.children, options)}</em>
    case 'inlineCode':
      return <code>{node.value}</code>
    case 'break':
      return <br />
    case 'link':
      return link(node.url, phrasing(node.children, options), options)
    case 'linkReference': {
      const url = options.definitions.get(node.identifier)
      const content = phrasing(node.children, options)
      return url === undefined ? content : link(url, content, options)
    }
    case 'html':
      return node.value
    default:
      // An image shows its description: an answer never makes the browser fetch another site's picture.
      return toString(node as Nodes)
  }
}

/**
 * A link to an http(s) address or an anchor of the page; any other (`javascript:`, a file of the repository) keeps
 * only its text. A page of its own (the README, a chapter of the docs) opens this server's other pages in place, as a
 * site's links between its pages do; an answer's links, and any to another site, open in a new tab.
 */
function link(written: string, content: ComponentChildren, options: Options): ComponentChildren {
  const url = options.linkAddress ? options.linkAddress(written) : written
  if (url === undefined || !/^(https?:\/\/|#)/i.test(url)) return content
  if (opensInPlace(url, options.document)) return <a href={url}>{content}</a>
  return (
    <a href={url} target="_blank" rel="noopener noreferrer">
      {content}
    </a>
  )
}

function opensInPlace(href: string, document: boolean): boolean {
  if (href.startsWith('#')) return true
  return document && typeof window !== 'undefined' && href.startsWith(`${window.location.origin}/`)
}
