import { describe, expect, it } from 'bun:test'
import type { VNode } from 'preact'
import { leadingBold, Markdown } from '../../../plugins/web/client/markdown'
import { firstTable } from '../../../plugins/web/client/markdown-table'

/** The elements a component builds, as compact HTML-like text (`<p>a <strong>b</strong></p>`), components expanded. */
function html(node: unknown): string {
  if (node === null || node === undefined || typeof node === 'boolean') return ''
  if (typeof node === 'string' || typeof node === 'number') return String(node)
  if (Array.isArray(node)) return node.map(html).join('')
  const vnode = node as VNode<{ children?: unknown }>
  if (typeof vnode.type === 'function') return html((vnode.type as (props: unknown) => unknown)(vnode.props))
  const tag = vnode.type as string | undefined
  const { start, href, id } = vnode.props as { start?: number; href?: string; id?: string }
  const attributes = [start !== undefined && ` start=${start}`, href && ` href=${href}`, id && ` id=${id}`]
  const open = `${tag}${attributes.filter(Boolean).join('')}`
  return tag ? `<${open}>${html(vnode.props.children)}</${tag}>` : html(vnode.props.children)
}

const render = (text: string) => html(Markdown({ text }))
const page = (text: string) => html(Markdown({ text, document: true }))
const streamed = (text: string) => html(Markdown({ text, streaming: true }))

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
        '<li><p>Ask.</p></li>' +
        '</ol><p>After the list.</p>',
    )
  })

  it('nests a list indented under an item, and starts a numbered list at its first number', () => {
    // A tight list (no blank line between its items) shows its items' text without paragraphs, as CommonMark draws it.
    expect(render('- a\n  - b\n  - c\n- d')).toBe('<ul><li>a<ul><li>b</li><li>c</li></ul></li><li>d</li></ul>')
    expect(render('3. c\n4. d')).toBe('<ol start=3><li>c</li><li>d</li></ol>')
  })

  it('reads a line indented less than its item as more of its text, and a fence indented up to three spaces', () => {
    expect(render('- one\n two\n- three')).toBe('<ul><li>one\ntwo</li><li>three</li></ul>')
    expect(render('  ```\n  x = 1\n  ```')).toBe('<pre><code>x = 1</code></pre>')
  })

  it('reads the CommonMark the hand-written subset missed: quotes, setext and deep headings, autolinks, hard breaks', () => {
    expect(render('> Revenue is net of refunds.')).toBe('<blockquote><p>Revenue is net of refunds.</p></blockquote>')
    expect(page('Title\n=====\n\n##### Deep')).toBe('<h1 id=title>Title</h1><h5 id=deep>Deep</h5>')
    // Two headings alike get anchors of their own, as GitHub gives them.
    expect(page('# Limits\n\n## Limits\n\n## Limits')).toBe(
      '<h1 id=limits>Limits</h1><h2 id=limits-1>Limits</h2><h2 id=limits-2>Limits</h2>',
    )
    expect(render('See <https://a.example/x>.')).toBe('<p>See <a href=https://a.example/x>https://a.example/x</a>.</p>')
    expect(render('one  \ntwo')).toBe('<p>one<br></br>two</p>')
    expect(render('**total `x`** and *it*')).toBe('<p><strong>total <code>x</code></strong> and <em>it</em></p>')
    expect(render('---')).toBe('<hr></hr>')
  })

  it('resolves reference links to their definitions, and shows a link without one as its text', () => {
    expect(render('Read [the guide][g].\n\n[g]: https://a.example/guide')).toBe(
      '<p>Read <a href=https://a.example/guide>the guide</a>.</p>',
    )
  })

  it('never injects markup, runs a script address or loads a picture from model output', () => {
    expect(render('<img src=x onerror=alert(1)>')).toBe('<p><img src=x onerror=alert(1)></p>')
    expect(render('a <b>bold</b> claim')).toBe('<p>a <b>bold</b> claim</p>')
    expect(render('[click](javascript:alert(1))')).toBe('<p>click</p>')
    expect(render('![a chart](https://tracker.example/pixel.png)')).toBe('<p>a chart</p>')
  })

  it('sends links where the page says, and leaves code as written', () => {
    const linkAddress = (url: string) => (url.endsWith('.md') ? `https://docs.example/${url.slice(0, -3)}` : undefined)
    const text =
      'See [setup](setup.md) and [that file](run.ts).\n\n```md\n[setup](setup.md)\n```\n\n| [Setup](setup.md) |\n|---|'
    expect(html(Markdown({ text, linkAddress }))).toBe(
      '<p>See <a href=https://docs.example/setup>setup</a> and that file.</p>' +
        '<pre><code>[setup](setup.md)</code></pre>' +
        '<div><table><thead><tr><th><a href=https://docs.example/setup>Setup</a></th></tr></thead><tbody></tbody></table></div>',
    )
  })

  it('closes the bold or code an answer has open as it streams in, in its last paragraph, heading or cell only', () => {
    expect(streamed('Revenue: **Europe')).toBe('<p>Revenue: <strong>Europe</strong></p>')
    expect(streamed('Run `SELECT 1')).toBe('<p>Run <code>SELECT 1</code></p>')
    expect(streamed('Revenue: **')).toBe('<p>Revenue:</p>')
    expect(streamed('| Region |\n|---|\n| **Eur')).toContain('<td><strong>Eur</strong></td>')
    // Marks inside code, or in a paragraph before the last, are the text's: nothing is added at its end.
    const code = '```py\nprint(2 ** 10)\n```\n\nThat is 1024.'
    expect(streamed(code)).toBe('<pre><code>print(2 ** 10)</code></pre><p>That is 1024.</p>')
    expect(streamed('Use `a ** b` for powers.')).toBe('<p>Use <code>a ** b</code> for powers.</p>')
    expect(streamed('A stray ** here.\n\nDone.')).toBe('<p>A stray ** here.</p><p>Done.</p>')
    // The block closed is read again with the text's link definitions: its reference links still go somewhere.
    expect(streamed('[g]: https://a.example/guide\n\n1. See\n2. [the guide][g], **bold')).toBe(
      '<ol><li>See</li><li><a href=https://a.example/guide>the guide</a>, <strong>bold</strong></li></ol>',
    )
  })

  it("draws a page's or a finished answer's text as written, adding no mark at its end", () => {
    const chapter = '```json\n{"content":"**Revenue ","isDelta":true}\n```\n\nThe end.'
    expect(page(chapter)).toBe('<pre><code>{"content":"**Revenue ","isDelta":true}</code></pre><p>The end.</p>')
    expect(page('Globs: **')).toBe('<p>Globs: **</p>')
    // So is a finished answer.
    expect(render('Globs: **')).toBe('<p>Globs: **</p>')
  })

  it('leaves tables out when the answer draws its table as a chart', () => {
    const text = 'Top:\n\n| A | B |\n|---|--:|\n| x | 1 |'
    expect(html(Markdown({ text, withoutTables: true }))).toBe('<p>Top:</p>')
    expect(render(text)).toContain('<th>A</th>')
  })
})

describe('firstTable and leadingBold', () => {
  it('reads a table as CommonMark and GitHub do: text cells, alignment, cells padded to the header', () => {
    const table = firstTable('**Revenue**\n\n| Region | Revenue |\n|:--|--:|\n| **Europe** | 1,200 |\n| A\\|B |')!
    expect(table.headers).toEqual(['Region', 'Revenue'])
    expect(table.align).toEqual(['left', 'right'])
    expect(table.rows).toEqual([
      ['Europe', '1,200'],
      ['A|B', ''],
    ])
    expect(firstTable('no | table here')).toBeUndefined()
  })

  it("takes an answer's title from its bold first words only", () => {
    expect(leadingBold('**Revenue by region, 2024**\n\nEurope leads.')).toBe('Revenue by region, 2024')
    expect(leadingBold('Europe leads with **40%**.')).toBeUndefined()
  })
})
