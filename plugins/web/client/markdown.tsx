import type { ComponentChildren } from 'preact'
import { alignments, isSeparator, splitRow, type MarkdownTable } from './markdown-table'

/**
 * The small part of Markdown the analysts write: paragraphs, headings, bullet and numbered lists, fenced code,
 * tables (with `---:` alignment and `\|` escapes) and inline bold, italics, code and links. It builds elements, never
 * HTML strings, so model output cannot inject markup; links open only http(s) URLs.
 */
export function Markdown({
  text,
  withoutTables = false,
  document = false,
}: {
  text: string
  withoutTables?: boolean
  document?: boolean
}) {
  return <>{blocks(closeOpenMarks(text), withoutTables, document)}</>
}

/** A heading's anchor as GitHub makes it: `Embedded pages` → `embedded-pages`. */
export function headingId(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s-]/gu, '')
    .trim()
    .replace(/\s/g, '-')
}

/** While an answer streams in, a `**` or a backtick may be open: close it, so the reader sees bold, not asterisks. */
function closeOpenMarks(text: string): string {
  let closed = text
  if ((closed.match(/\*\*/g)?.length ?? 0) % 2 === 1)
    closed = closed.endsWith('**') ? closed.slice(0, -2) : `${closed}**`
  if ((closed.replace(/```/g, '').match(/`/g)?.length ?? 0) % 2 === 1) closed += '`'
  return closed
}

/** A table of an answer, its cells read as inline Markdown; it scrolls sideways inside its card when too wide. */
export function TableView({
  table,
  caption,
  document = false,
}: {
  table: MarkdownTable
  caption?: string
  document?: boolean
}) {
  const { headers, align, rows } = table
  return (
    <div class="table-scroll">
      <table>
        {caption && <caption class="sr-only">{caption}</caption>}
        <thead>
          <tr>
            {headers.map((cell, column) => (
              <th scope="col" class={align[column] && `align-${align[column]}`}>
                {inline(cell, document)}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr>
              {headers.map((_, column) => (
                <td class={align[column] && `align-${align[column]}`}>{inline(row[column] ?? '', document)}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}

/**
 * `withoutTables` leaves tables out: the answer shows its result as a chart with the table one click away.
 * `document` renders a page of its own (the README): headings at their own level, with anchors.
 */
function blocks(text: string, withoutTables: boolean, document = false): ComponentChildren[] {
  const lines = text.replace(/\r\n?/g, '\n').split('\n')
  const out: ComponentChildren[] = []
  let paragraph: string[] = []
  const flush = () => {
    if (paragraph.length) out.push(<p key={out.length}>{inline(paragraph.join('\n'), document)}</p>)
    paragraph = []
  }
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]
    if (line.trim() === '') {
      flush()
      continue
    }
    const fence = FENCE.exec(line)
    if (fence) {
      flush()
      // Up to three spaces may come before a fence; as many are taken off each line of the code.
      const indent = new RegExp(`^ {0,${fence[1].length}}`)
      const code: string[] = []
      for (index++; index < lines.length && !FENCE.test(lines[index]); index++)
        code.push(lines[index].replace(indent, ''))
      out.push(
        <pre key={out.length}>
          <code>{code.join('\n')}</code>
        </pre>,
      )
      continue
    }
    const heading = /^(#{1,4})\s+(.*)$/.exec(line)
    if (heading) {
      flush()
      if (document) {
        const Tag = (['h1', 'h2', 'h3', 'h4'] as const)[heading[1].length - 1]
        out.push(
          <Tag key={out.length} id={headingId(heading[2])}>
            {inline(heading[2], document)}
          </Tag>,
        )
        continue
      }
      // Headings inside a message stay below the page's own headings.
      const Tag = (['h3', 'h4', 'h5', 'h6'] as const)[heading[1].length - 1]
      out.push(<Tag key={out.length}>{inline(heading[2])}</Tag>)
      continue
    }
    if (line.trimStart().startsWith('|') && index + 1 < lines.length && isSeparator(lines[index + 1])) {
      flush()
      const header = splitRow(line)
      const align = alignments(lines[index + 1])
      const rows: string[][] = []
      for (index += 2; index < lines.length && lines[index].trimStart().startsWith('|'); index++)
        rows.push(splitRow(lines[index]))
      index--
      if (withoutTables) continue
      out.push(<TableView key={out.length} table={{ headers: header, align, rows }} document={document} />)
      continue
    }
    if (BULLET.test(line)) {
      flush()
      const list = listAt(lines, index)
      index = list.end - 1
      const List = list.ordered ? 'ol' : 'ul'
      out.push(
        <List key={out.length} start={list.start === 1 ? undefined : list.start}>
          {list.items.map((item) => (
            <li>{listItem(item, withoutTables, document)}</li>
          ))}
        </List>,
      )
      continue
    }
    paragraph.push(line)
  }
  flush()
  return out
}

const FENCE = /^( {0,3})```/
const BULLET = /^(\s*)([-*+]|\d+[.)])\s+/

/**
 * The list that starts at `lines[from]`: its items, each the lines written under its marker (taken back by the
 * marker's width, so a code block, a table or a list inside an item is read as one), up to the first line that belongs
 * to none. A blank line between items, or before a line indented under an item, does not end it.
 */
function listAt(lines: string[], from: number) {
  const first = BULLET.exec(lines[from])!
  const ordered = /\d/.test(first[2])
  const start = ordered ? Number.parseInt(first[2], 10) : 1
  const indent = first[1].length
  const items: string[][] = []
  let width = 0
  let index = from
  for (; index < lines.length; index++) {
    const line = lines[index]
    const marker = BULLET.exec(line)
    if (marker && marker[1].length === indent && /\d/.test(marker[2]) === ordered) {
      width = marker[0].length
      items.push([line.slice(width)])
    } else if (line.trim() === '') {
      // A blank line stays in the list when what follows is indented under the item or is its next item.
      const next = lines.slice(index + 1).findIndex((later) => later.trim() !== '')
      if (next < 0) break
      const following = lines[index + 1 + next]
      const sibling = BULLET.exec(following)
      const inside = following.length - following.trimStart().length >= width
      if (!inside && !(sibling && sibling[1].length === indent)) break
      items[items.length - 1].push('')
    } else if (line.length - line.trimStart().length >= width) items[items.length - 1].push(line.slice(width))
    // A line indented less than the item's text goes on with its paragraph, as it always has.
    else if (/^\s+\S/.test(line)) items[items.length - 1].push(line.trim())
    else break
  }
  return { ordered, start, items, end: index }
}

/** An item of one paragraph shows its text alone (a tight list); one of several blocks shows each. */
function listItem(lines: string[], withoutTables: boolean, document: boolean): ComponentChildren {
  const text = lines.join('\n').trimEnd()
  const simple = !text.includes('\n\n') && !lines.slice(1).some((line) => FENCE.test(line) || BULLET.test(line))
  if (simple && !lines[0].trimStart().startsWith('|') && !FENCE.test(lines[0])) return inline(lines.join(' '), document)
  return blocks(text, withoutTables, document)
}

// As CommonMark has them: a backslash before punctuation makes it a plain character (`\\*`), and `_` opens or
// closes emphasis only at a word's edge, so `orders.average_amount` stays one word.
const INLINE =
  /(\\([!-/:-@[-`{-~])|\*\*((?:\\.|[^*\\])+)\*\*|(?<![\p{L}\p{N}_\\])__([^_]+)__(?![\p{L}\p{N}_])|`([^`]+)`|\*((?:\\.|[^*\s\\])(?:\\.|[^*\\])*)\*|(?<![\p{L}\p{N}_\\])_([^_\s](?:[^_]*[^_\s])?)_(?![\p{L}\p{N}_])|\[([^\]]+)\]\((https?:\/\/[^\s)]+|#[\w-]+)\))/gu

/**
 * A page of its own (the README, a chapter of the docs) opens links to this server's other pages in place, as a
 * site's links between its pages do; an answer's links, and any to another site, open in a new tab.
 */
function opensInPlace(href: string, document: boolean): boolean {
  if (href.startsWith('#')) return true
  return document && typeof window !== 'undefined' && href.startsWith(`${window.location.origin}/`)
}

function inline(text: string, document = false): ComponentChildren[] {
  const out: ComponentChildren[] = []
  const pattern = new RegExp(INLINE)
  let position = 0
  for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
    if (match.index > position) out.push(text.slice(position, match.index))
    position = match.index + match[0].length
    const [, , escaped, bold, boldAlt, code, italic, italicAlt, linkText, href] = match
    if (escaped) out.push(escaped)
    else if (bold ?? boldAlt) out.push(<strong>{inline(bold ?? boldAlt, document)}</strong>)
    else if (code) out.push(<code>{code}</code>)
    else if (italic ?? italicAlt) out.push(<em>{inline(italic ?? italicAlt, document)}</em>)
    else if (linkText)
      out.push(
        opensInPlace(href, document) ? (
          <a href={href}>{linkText}</a>
        ) : (
          <a href={href} target="_blank" rel="noopener noreferrer">
            {linkText}
          </a>
        ),
      )
  }
  if (position < text.length) out.push(text.slice(position))
  return out
}
