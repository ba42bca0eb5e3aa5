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
  const start = (vnode.props as { start?: number }).start
  const open = start === undefined ? tag : `${tag} start=${start}`
  return tag ? `<${open}>${html(vnode.props.children)}</${tag}>` : html(vnode.props.children)
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

  it('keeps a numbered step whole with the code block and the text indented under it, and the steps numbered on', () => {
    const steps = [
      '1. Describe your tables:',
      '',
      '   ```sh',
      '   npm run cli -- model generate',
      '     --out ./models/shop',
      '   ```',
      '',
      '   It prints what it inferred.',
      '',
      '2. Point a deployment at it:',
      '',
      '   ```yaml',
      '   deployments:',
      '     - id: 3',
      '   ```',
      '',
      '3. Ask.',
      '',
      'After the list.',
    ].join('\n')
    expect(render(steps)).toBe(
      '<ol>' +
        '<li><p>Describe your tables:</p><pre><code>npm run cli -- model generate\n  --out ./models/shop</code></pre>' +
        '<p>It prints what it inferred.</p></li>' +
        '<li><p>Point a deployment at it:</p><pre><code>deployments:\n  - id: 3</code></pre></li>' +
        '<li>Ask.</li>' +
        '</ol><p>After the list.</p>',
    )
  })

  it('nests a list indented under an item, and starts a numbered list at its first number', () => {
    expect(render('- a\n  - b\n  - c\n- d')).toBe('<ul><li><p>a</p><ul><li>b</li><li>c</li></ul></li><li>d</li></ul>')
    expect(render('3. c\n4. d')).toBe('<ol start=3><li>c</li><li>d</li></ol>')
  })

  it('reads a line indented less than its item as more of its text, and a fence indented up to three spaces', () => {
    expect(render('- one\n two\n- three')).toBe('<ul><li>one two</li><li>three</li></ul>')
    expect(render('  ```\n  x = 1\n  ```')).toBe('<pre><code>x = 1</code></pre>')
  })
})
