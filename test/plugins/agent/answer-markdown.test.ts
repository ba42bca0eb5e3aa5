import { describe, expect, it } from 'bun:test'
import type { VNode } from 'preact'
import { table } from '../../../plugins/agent/offline/answer'
import { cell, escapeMarkdown } from '../../../plugins/agent/offline/format'
import { Markdown } from '../../../plugins/web/client/markdown'

/** The elements the chat builds for a text, as compact HTML-like text, components expanded. */
function html(node: unknown): string {
  if (node === null || node === undefined || typeof node === 'boolean') return ''
  if (typeof node === 'string' || typeof node === 'number') return String(node)
  if (Array.isArray(node)) return node.map(html).join('')
  const vnode = node as VNode<{ children?: unknown }>
  if (typeof vnode.type === 'function') return html((vnode.type as (props: unknown) => unknown)(vnode.props))
  const tag = vnode.type as string | undefined
  return tag ? `<${tag}>${html(vnode.props.children)}</${tag}>` : html(vnode.props.children)
}

const names = [
  'Deluxe_Kit *new*',
  'A | B',
  '[link](https://x.example)',
  '`code`',
  'back\\slash',
  '<b>bold</b>',
  '~~x~~',
]

describe('escapeMarkdown', () => {
  it('makes data read as the data in the chat, never as emphasis, code, links or markup', () => {
    for (const name of names)
      expect(html(Markdown({ text: `Top: ${escapeMarkdown(name)}.` }))).toBe(`<p>Top: ${name}.</p>`)
  })

  it('keeps a value whole inside a table cell, pipes included', () => {
    const text = table(
      [
        { header: 'Product_name', numeric: false },
        { header: 'Revenue', numeric: true },
      ],
      names.map((name) => [cell(escapeMarkdown(name)), '1']),
    )
    const rendered = html(Markdown({ text }))
    expect(rendered).toContain('<th>Product_name</th>')
    for (const name of names) expect(rendered).toContain(`<td>${name}</td>`)
  })
})
