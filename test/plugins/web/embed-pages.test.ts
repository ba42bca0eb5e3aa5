import { afterAll, describe, expect, it } from 'bun:test'
import { createHash } from 'node:crypto'
import { webAssets } from '../../../plugins/web/assets'
import { CONTENT_SECURITY_POLICY, HOME_CONTENT_SECURITY_POLICY } from '../../../plugins/web/pages'
import { createTestApp } from '../../helpers/app'

const test = createTestApp()
afterAll(() => test.close())

/** The assets a page links to, with their integrity values. */
function linkedAssets(html: string) {
  const script = /<script type="module" src="(\/embed\/assets\/[^"]+\.js)" integrity="([^"]+)"><\/script>/.exec(html)
  const style = /<link rel="stylesheet" href="(\/embed\/assets\/[^"]+\.css)" integrity="([^"]+)">/.exec(html)
  return {
    script: script && { path: script[1], integrity: script[2] },
    style: style && { path: style[1], integrity: style[2] },
  }
}

describe('GET /embed/dashboard/:publicId and GET /embed/chat', () => {
  for (const [page, path] of [
    ['dashboard', '/embed/dashboard/abc123?session=es_whatever'],
    ['chat', '/embed/chat?sessionId=es_whatever'],
  ] as const) {
    it(`serves the ${page} page uncached, with a strict policy that still allows framing`, async () => {
      const response = await test.request('GET', path)
      expect(response.status).toBe(200)
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8')
      expect(response.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY)
      expect(CONTENT_SECURITY_POLICY).toContain("script-src 'self'")
      expect(CONTENT_SECURITY_POLICY).toContain("default-src 'none'")
      expect(CONTENT_SECURITY_POLICY).toContain('frame-ancestors *')
      expect(CONTENT_SECURITY_POLICY).not.toContain('unsafe')
      expect(response.headers.get('cache-control')).toBe('no-store')
      expect(response.headers.get('referrer-policy')).toBe('no-referrer')
      expect(response.headers.get('x-frame-options')).toBeNull()
      const html = await response.text()
      expect(html).toContain(`<body data-page="${page}">`)
      // No inline code: every script has a src, and nothing of the request (the session id) is echoed.
      expect(html.match(/<script[^>]*>/g)).toEqual([expect.stringContaining(' src="/embed/assets/')])
      expect(html).not.toContain('es_whatever')
      expect(html).not.toMatch(/https?:\/\//)
    })
  }

  it('serves the same page for a missing session id (the page explains the link is incomplete)', async () => {
    const response = await test.request('GET', '/embed/chat')
    expect(response.status).toBe(200)
    expect(await response.text()).toContain('<body data-page="chat">')
  })
})

describe('GET /embed/assets/:file', () => {
  it('serves the linked script and stylesheet, immutable, matching their integrity values', async () => {
    const html = await (await test.request('GET', '/embed/chat?sessionId=x')).text()
    const { script, style } = linkedAssets(html)
    for (const [asset, type] of [
      [script, 'text/javascript; charset=utf-8'],
      [style, 'text/css; charset=utf-8'],
    ] as const) {
      expect(asset).not.toBeNull()
      const response = await test.request('GET', asset!.path)
      expect(response.status).toBe(200)
      expect(response.headers.get('content-type')).toBe(type)
      expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
      const body = Buffer.from(await response.arrayBuffer())
      expect(`sha384-${createHash('sha384').update(body).digest('base64')}`).toBe(asset!.integrity)
    }
  })

  it('sends gzip to browsers that accept it, with the same content', async () => {
    const path = `/embed/assets/${webAssets.script.name}`
    const response = await test.request('GET', path, { headers: { 'accept-encoding': 'gzip, deflate, br' } })
    expect(response.headers.get('content-encoding')).toBe('gzip')
    expect(response.headers.get('vary')).toBe('accept-encoding')
    const zipped = new Uint8Array(await response.arrayBuffer())
    expect(new TextDecoder().decode(Bun.gunzipSync(zipped))).toBe(webAssets.script.body)
    expect(zipped.byteLength).toBeLessThan(webAssets.script.body.length / 2)
  })

  it('answers 404 with the error body for an unknown asset', async () => {
    const response = await test.request('GET', '/embed/assets/embed-0000.js')
    expect(response.status).toBe(404)
    expect(await response.json()).toEqual({ error: 'No such asset', code: 'ASSET_NOT_FOUND' })
  })

  it('makes no third-party requests: the only URLs in the bundle are XML namespace names', () => {
    const urls = new Set([...webAssets.script.body.matchAll(/https?:\/\/[^"'`\s)]+/g)].map((match) => match[0]))
    for (const url of urls) expect(url).toStartWith('http://www.w3.org/')
    expect(webAssets.style.body).not.toMatch(/url\(|@import|https?:/)
  })
})

describe('GET /', () => {
  it('serves the front door with the same bundle, its version, and a policy that frames only this origin and is never framed', async () => {
    const response = await test.request('GET', '/')
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8')
    expect(response.headers.get('cache-control')).toBe('no-store')
    const policy = response.headers.get('content-security-policy')!
    expect(policy).toBe(HOME_CONTENT_SECURITY_POLICY)
    expect(policy).toContain("frame-src 'self'")
    expect(policy).toContain("frame-ancestors 'none'")
    expect(policy).toContain("script-src 'self'")
    expect(policy).not.toContain('unsafe')
    const html = await response.text()
    expect(html).toContain('data-page="home"')
    expect(html).toMatch(/data-version="\d+\.\d+\.\d+/)
    expect(linkedAssets(html).script?.path).toBe(`/embed/assets/${webAssets.script.name}`)
  })
})

describe('GET /readme and GET /readme.md', () => {
  it("serves the project's README as Markdown and as a page with the front door's policy", async () => {
    const markdown = await test.request('GET', '/readme.md')
    expect(markdown.status).toBe(200)
    expect(markdown.headers.get('content-type')).toBe('text/markdown; charset=utf-8')
    const text = await markdown.text()
    expect(text).toStartWith('# Analytics chat streaming and embed session service')
    expect(text).toContain('http://localhost:4000/')
    expect(text).toContain('(docs/embedding.md)')
    const page = await test.request('GET', '/readme')
    expect(page.status).toBe(200)
    expect(page.headers.get('content-security-policy')).toBe(HOME_CONTENT_SECURITY_POLICY)
    expect(await page.text()).toContain('data-page="readme"')
  })
})

describe('GET /docs/{name} and GET /docs/{name}.md', () => {
  it("serves each chapter of docs/ as Markdown and as a page with the front door's policy", async () => {
    const markdown = await test.request('GET', '/docs/embedding.md')
    expect(markdown.status).toBe(200)
    expect(markdown.headers.get('content-type')).toBe('text/markdown; charset=utf-8')
    const text = await markdown.text()
    expect(text).toStartWith('# Embedding\n')
    expect(text).toContain('## Embedded pages')
    for (const name of ['configuration', 'chat-api', 'management-api', 'several-nodes', 'operating', 'testing'])
      expect((await test.request('GET', `/docs/${name}.md`)).status).toBe(200)
    const page = await test.request('GET', '/docs/embedding')
    expect(page.status).toBe(200)
    expect(page.headers.get('content-security-policy')).toBe(HOME_CONTENT_SECURITY_POLICY)
    expect(await page.text()).toContain('data-page="readme"')
  })

  it('answers 404 DOC_NOT_FOUND for a chapter that does not exist, never a file outside docs/, and 400 to a broken name', async () => {
    for (const name of ['nope', 'nope.md', '..%2FREADME.md', 'constructor', '__proto__.md']) {
      const response = await test.request('GET', `/docs/${name}`)
      expect(response.status).toBe(404)
      expect(await response.json()).toMatchObject({ code: 'DOC_NOT_FOUND' })
    }
    // A name that is not text (a broken percent-encoding) is refused as any bad path value is.
    const broken = await test.request('GET', '/docs/%E0%A4%A.md')
    expect(broken.status).toBe(400)
    expect(await broken.json()).toMatchObject({ code: 'VALIDATION_FAILED' })
  })
})
