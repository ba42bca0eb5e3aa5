import { describe, expect, it } from 'bun:test'
import type { VNode } from 'preact'
import { Markdown } from '../../../plugins/web/client/markdown'

/** The elements a component builds, as compact HTML-like text (`<p>a <strong>b</strong></p>`), components expanded. */
function html(node: unknown): string {
  if (node === null || node === undefined || typeof node === 'boolean') return ''
  if (typeof node === 'string' || typeof node === 'number') return String(node)
  if (Array.isArray(node)) return node.map(html).join('')
  const vnode = node as VNode<{ children?: unknown }>
  if (typeof vnode.type === 'function') return html((vnode.type as (props: unknown) => unknown)(vnode.props))
  const tag = vnode.type as string | undefined
  return tag ? `<${tag}>${html(vnode.props.children)}</${tag}>` : html(vnode.props.children)
}

const render = (text: string) => html(Markdown({ text }))

describe('Markdown', () => {
  it('keeps underscores inside identifiers: orders.average_amount is one word, not emphasis', () => {
    expect(render('Use `x` or orders.average_amount and orders.total_amount.')).toBe(
      '<p>Use <code>x</code> or orders.average_amount and orders.total_amount.</p>',
    )
    expect(render('snake_case_name')).toBe('<p>snake_case_name</p>')
  })

  it('still reads emphasis at word edges', () => {
    expect(render('an _emphasised_ word and **bold**')).toBe(
      '<p>an <em>emphasised</em> word and <strong>bold</strong></p>',
    )
  })

  it('reads a backslash before punctuation as the character itself, so escaped data is never markup', () => {
    expect(render('\\*\\*Acme\\*\\* and \\_x\\_ and \\[link\\](https://a.example)')).toBe(
      '<p>**Acme** and _x_ and [link](https://a.example)</p>',
    )
    expect(render('**Sales\\*Co** grew')).toBe('<p><strong>Sales*Co</strong> grew</p>')
  })

  it('reads escapes inside table cells', () => {
    expect(render('| Product |\n|---|\n| Deluxe\\_Kit \\| big |')).toContain('<td>Deluxe_Kit | big</td>')
  })
})
