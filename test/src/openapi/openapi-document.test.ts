import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { spawnSync } from 'bun'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { apiKey, createTestApp, type TestApp } from '../../helpers/app'
import { chatBase, mergeLines, readLines, type Line } from '../../helpers/chat'
import { keys } from '../../helpers/fixtures'

type Json = Record<string, any>
const root = join(import.meta.dir, '..', '..', '..')
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace']

let test: TestApp
let document: Json
const dir = mkdtempSync(join(tmpdir(), 'openapi-'))
beforeAll(async () => {
  test = createTestApp()
  document = (await (await test.request('GET', '/openapi/json')).json()) as Json
})
afterAll(async () => {
  await test.close()
  rmSync(dir, { recursive: true, force: true })
})

const operations = () =>
  Object.entries<Json>(document.paths).flatMap(([path, item]) =>
    Object.entries<Json>(item).map(([method, operation]) => ({ method, path, operation })),
  )
const operation = (id: string) => operations().find((entry) => entry.operation.operationId === id)
/** A schema, or the named one it refers to under `components.schemas`. */
const resolved = (schema: Json): Json =>
  schema.$ref ? document.components.schemas[String(schema.$ref).replace('#/components/schemas/', '')] : schema

describe('GET /openapi/json', () => {
  it('passes `redocly lint` (recommended rules) with no error, offline', () => {
    const file = join(dir, 'openapi.json')
    writeFileSync(file, JSON.stringify(document))
    // Telemetry and the update check are the CLI's only network calls; both are off, so the lint needs no network.
    const result = spawnSync(
      [
        'node',
        join(root, 'node_modules', '@redocly', 'cli', 'bin', 'cli.js'),
        'lint',
        file,
        '--config',
        join(root, 'redocly.yaml'),
        '--format=json',
      ],
      {
        cwd: dir,
        env: {
          PATH: process.env.PATH ?? '',
          HOME: dir,
          REDOCLY_TELEMETRY: 'off',
          REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
          NO_UPDATE_NOTIFIER: '1',
        },
        timeout: 120_000,
      },
    )
    const output = result.stdout.toString()
    const report = JSON.parse(output.slice(output.indexOf('{'))) as {
      totals: { errors: number }
      problems: Array<{ severity: string; ruleId: string; message: string }>
    }
    expect(report.problems.filter((problem) => problem.severity === 'error')).toEqual([])
    expect(report.totals.errors).toBe(0)
    expect(result.exitCode).toBe(0)
  }, 120_000)

  it('names the operations with short camelCase ids, as the specification does', () => {
    const ids = operations().map((entry) => entry.operation.operationId as string)
    expect(new Set(ids).size).toBe(ids.length)
    for (const id of ids) expect(id).toMatch(/^[a-z][a-zA-Z]{2,40}$/)
    expect(operation('streamChatState')?.path).toBe(
      '/api/v1/public/{accountName}/agents/{agentId}/chat/stream-chat-state',
    )
    expect(operation('generateSession')?.path).toBe('/api/v1/embed/generate-session')
    expect(operation('exchangeEmbedSession')?.path).toBe('/api/v1/embed/session/token')
    expect(operation('revokeEmbedSession')?.path).toBe('/api/v1/embed/session/revoke')
    expect(operation('listReports')?.path).toBe('/api/v1/deployments/{deploymentId}/reports')
    expect(operation('deleteEmbedTenant')?.path).toBe('/api/v1/embed-tenants/{embedTenantName}')
  })

  it('documents the error responses of every API operation with the { error, code } body', () => {
    expect(document.components.schemas.Error).toMatchObject({ required: ['error', 'code'] })
    for (const { path, operation: op } of operations()) {
      if (!path.startsWith('/api/')) continue
      const errors = Object.keys(op.responses).filter((status) => status.startsWith('4'))
      expect({ path, errors: errors.length > 0 }).toEqual({ path, errors: true })
    }
    const generate = operation('generateSession')!.operation
    expect(Object.keys(generate.responses).sort()).toEqual(['200', '400', '401', '403', '404', '413', '429', '503'])
    expect(generate.responses['403']).toEqual({ $ref: '#/components/responses/Forbidden' })
    expect(document.components.responses.Forbidden.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/Error',
    })
    expect(Object.keys(operation('deleteFolder')!.operation.responses)).toContain('409')
    expect(document.components.responses.TooManyRequests.headers['Retry-After']).toBeDefined()
    // The statuses these operations answer with, as they answer them.
    const statuses = (id: string) => Object.keys(operation(id)!.operation.responses).sort()
    for (const id of ['abortChat', 'revokeEmbedSession']) {
      expect(statuses(id)).toContain('204')
      expect(statuses(id)).not.toContain('200')
    }
    expect(statuses('exchangeEmbedSession')).toContain('401')
    expect(statuses('streamChatState')).toContain('503')
    expect(statuses('runSemanticSql')).toEqual(expect.arrayContaining(['503', '504']))
    expect(document.components.responses.ServiceUnavailable.headers['Retry-After']).toBeDefined()
  })

  it('lists every error status an operation answers with, beyond those its shape implies', () => {
    // Each status here is one the operation's handler (or a service it calls) throws, with the code named.
    const answered: Record<string, Record<string, string>> = {
      startDbtSync: { 409: 'DBT_SYNC_IN_PROGRESS' },
      setApiKeyPolicy: { 409: 'SELF_LOCKOUT' },
      getDashboardWidgetData: { 503: 'DATA_SOURCE_UNAVAILABLE', 504: 'QUERY_TIMEOUT', 429: 'RATE_LIMITED' },
      getEmbeddedWidgetData: { 503: 'DATA_SOURCE_UNAVAILABLE', 504: 'QUERY_TIMEOUT', 429: 'RATE_LIMITED' },
      runSemanticSql: {
        503: 'DATA_SOURCE_UNAVAILABLE',
        504: 'QUERY_TIMEOUT',
        429: 'RATE_LIMITED',
        409: 'MODEL_INVALID',
      },
      getSemanticModel: { 409: 'MODEL_INVALID' },
      generateSession: { 404: 'DEPLOYMENT_NOT_FOUND' },
      getEmbedSessionContext: { 404: 'DEPLOYMENT_NOT_FOUND' },
      exchangeEmbedSession: { 401: 'INVALID_SESSION', 503: 'STORAGE_UNAVAILABLE' },
      createDashboard: { 409: 'DASHBOARD_EXISTS' },
      updateDashboard: { 409: 'STALE_CHECKSUM' },
      updatePublishedAiWidgetThread: { 409: 'DASHBOARD_NOT_PUBLISHED' },
      createWorkbook: { 409: 'SLUG_TAKEN' },
      updateWorkbook: { 409: 'SLUG_TAKEN' },
      deleteFolder: { 409: 'FOLDER_NOT_EMPTY' },
      streamChatState: { 429: 'TOO_MANY_RUNS', 503: 'RUN_REGISTRY_UNAVAILABLE' },
      abortChat: { 503: 'RUN_REGISTRY_UNAVAILABLE' },
    }
    const missing = Object.entries(answered).flatMap(([id, codes]) =>
      Object.entries(codes)
        .filter(([status]) => !(status in operation(id)!.operation.responses))
        .map(([status, code]) => `${id} ${status} ${code}`),
    )
    expect(missing).toEqual([])
    // Every credential check reads the state database, which answers 503 STORAGE_UNAVAILABLE while it is down.
    const secured = operations().filter((entry) => entry.operation.security.length > 0)
    expect(secured.length).toBeGreaterThan(40)
    for (const { operation: op } of secured)
      expect({ id: op.operationId, has503: '503' in op.responses }).toEqual({ id: op.operationId, has503: true })
  })

  it('leaves out the operations removed in v0.2.0, whose addresses answer 404', async () => {
    expect(Object.keys(document.paths).filter((path) => path.includes('user-attributes'))).toEqual([])
    for (const id of ['listEmbedTenantUserAttributes', 'deleteEmbedTenantUserAttribute'])
      expect(operation(id)).toBeUndefined()
    const removed = await test.request('GET', '/api/v1/embed-tenants/tenant-one/user-attributes', {
      headers: { authorization: 'Api-Key ak_test_admin_0123456789' },
    })
    expect(removed.status).toBe(404)
    expect(((await removed.json()) as Json).code).toBe('REMOVED_IN_V0_2_0')
  })

  it('puts security on every operation: the schemes it takes, or an empty list', () => {
    for (const { operation: op } of operations()) expect(Array.isArray(op.security)).toBe(true)
    expect(operation('getHealth')!.operation.security).toEqual([])
    expect(operation('exchangeEmbedSession')!.operation.security).toEqual([])
    expect(operation('generateSession')!.operation.security).toEqual([{ ApiKey: [] }])
    expect(operation('streamChatState')!.operation.security).toEqual([
      { ApiKey: [] },
      { ServiceAuthToken: [] },
      { EmbedToken: [] },
    ])
  })

  it('describes the WebSocket in prose, has servers, no pseudo-methods and no void content', () => {
    expect(document.servers).toEqual([{ url: '/', description: 'This server' }])
    for (const item of Object.values<Json>(document.paths))
      for (const method of Object.keys(item)) expect(METHODS).toContain(method)
    expect(document.tags.find((tag: Json) => tag.name === 'Chat').description).toContain('/chat/ws')
    for (const { operation: op } of operations())
      for (const response of Object.values<Json>(op.responses))
        if (response.content) for (const type of Object.keys(response.content)) expect(type).toContain('/')
    expect(operation('deleteFolder')!.operation.responses['204'].content).toBeUndefined()
  })

  it('publishes the fields of every request body, the schema that validates it', () => {
    const bodies = operations().filter((entry) => entry.operation.requestBody)
    expect(bodies.length).toBeGreaterThan(20)
    const blank = bodies
      .filter(({ operation: op }) => {
        const schema = op.requestBody.content['application/json'].schema
        return !(schema.properties || schema.$ref || schema.anyOf)
      })
      .map(({ operation: op }) => op.operationId)
    expect(blank).toEqual([])
    const update = operation('updateFolder')!.operation.requestBody
    expect(update.required).toBe(true)
    expect(Object.keys(resolved(update.content['application/json'].schema).properties)).toEqual(['name', 'parentId'])
    expect(resolved(update.content['application/json'].schema).additionalProperties).toBe(false)
    expect(operation('duplicateWorkbook')!.operation.requestBody.required).toBe(false)
  })

  it("names the specification's types under components.schemas, and refers to them", () => {
    const names = Object.keys(document.components.schemas)
    for (const name of [
      'FoldersListResponse',
      'ReportsListResponse',
      'AppConfigResponse',
      'DbtSyncResponse',
      'StartDbtSyncInput',
      'ConnectReportToWorkbookInput',
      'UpdatePublishedAiWidgetThreadInput',
      'DuplicateWorkbookInput',
      'CreateNotificationInput',
      'UpdateNotificationInput',
      'UpdateWorkbookInput',
      'ChatThreadPolicyDTO',
      'NotificationRecipient',
      'ChatRequest',
      'ImageAttachment',
      'ToolCall',
      'Report',
      'ReportSnapshot',
      'Dashboard',
      'Workbook',
    ])
      expect({ name, named: names.includes(name) }).toEqual({ name, named: true })
    // The names that later releases replaced are gone: a schema keeps one name.
    expect(names).not.toContain('FoldersFindAllResult')
    expect(names).not.toContain('ReportsFindAllResult')
    const list = operation('listFolders')!.operation.responses['200'].content['application/json'].schema
    expect(list).toEqual({ $ref: '#/components/schemas/FoldersListResponse' })
    expect(JSON.stringify(document)).not.toContain('x-schema-name')
  })

  it("declares the chat stream's text/html response without a body schema", () => {
    const content = operation('streamChatState')!.operation.responses['200'].content
    expect(content['text/html; charset=utf-8']).toEqual({})
    expect(content['application/json']).toBeDefined()
  })

  it('documents the embed pages and their assets as they answer', async () => {
    // The pages are 200 whatever the session (their script says when it is unknown); an unknown asset is JSON 404.
    for (const id of ['openEmbeddedDashboardPage', 'openEmbeddedChatPage']) {
      const { responses } = operation(id)!.operation
      expect(responses['404']).toBeUndefined()
      expect(responses['200'].content['text/html; charset=utf-8']).toEqual({})
    }
    const page = await test.request('GET', '/embed/dashboard/pd_demo_sales_overview?session=es_bogus')
    expect(page.status).toBe(200)
    expect(operation('getEmbedAsset')!.operation.responses['404']).toEqual({ $ref: '#/components/responses/NotFound' })
    const asset = await test.request('GET', '/embed/assets/nope.js')
    expect([asset.status, ((await asset.json()) as Json).code]).toEqual([404, 'ASSET_NOT_FOUND'])
  })

  it('documents the chat request open to fields it does not know, as the chat reads it', async () => {
    const { ChatRequest, ImageAttachment } = document.components.schemas
    expect(JSON.stringify([ChatRequest, ImageAttachment])).not.toContain('additionalProperties')
    expect(
      JSON.stringify(resolved(operation('generateSession')!.operation.requestBody.content['application/json'].schema)),
    ).toContain('"additionalProperties":false')
  })

  it('carries the request body schema and examples of the main operations', () => {
    const generate = operation('generateSession')!.operation.requestBody.content['application/json']
    expect(resolved(generate.schema).required).toContain('deploymentId')
    expect(generate.example).toMatchObject({ deploymentId: 1, externalId: 'user-42' })
    const stream = operation('streamChatState')!.operation
    expect(resolved(stream.requestBody.content['application/json'].schema).properties.messageId).toBeDefined()
    expect(stream.responses['200'].content['application/json'].example[0]).toMatchObject({ id: '__cutoff__' })
    expect(operation('runSemanticSql')!.operation.responses['200'].content['application/json'].example.totalRows).toBe(
      2,
    )
  })
  it("shows a chat stream whose lines have the fields the server's own lines of each kind have", async () => {
    const example = operation('streamChatState')!.operation.responses['200'].content['application/json']
      .example as Line[]
    const response = await test.request('POST', `${chatBase()}/stream-chat-state`, {
      headers: apiKey(keys.admin),
      body: { input: 'How many orders per region?', sessionSettings: { externalId: 'openapi-example' } },
    })
    const served = await readLines(response)
    // The kind of a line: the sentinels by id, a message by its role and whether it opens, grows or closes it.
    const kind = (line: Line) =>
      line.id === '__cutoff__' || line.id === '__state__'
        ? line.id
        : `${line.role} ${line.toolCall ? 'tool' : line.isDelta ? 'delta' : 'opening'}`
    const fields = (lines: Line[]) => {
      const byKind = new Map<string, string>()
      for (const line of lines) byKind.set(kind(line), Object.keys(line).sort().join(','))
      return byKind
    }
    const servedFields = fields(served)
    for (const [exampleKind, exampleFields] of fields(example))
      expect([exampleKind, exampleFields]).toEqual([exampleKind, servedFields.get(exampleKind)!])
    // Each message is opened before its deltas, and the final snapshot holds the messages the lines built.
    const state = example.at(-1) as { state: { messages: unknown[] } }
    expect(state.state.messages).toEqual(
      mergeLines(example.slice(1, -1)).map((message) => ({ ...message, isDelta: false })),
    )
  })
})

describe('GET /openapi', () => {
  it('loads only same-origin scripts and styles, which the server serves itself', async () => {
    const response = await test.request('GET', '/openapi')
    expect(response.status).toBe(200)
    const html = await response.text()
    const urls = [...html.matchAll(/\b(?:src|href)="([^"]+)"/g)].map((match) => match[1])
    // Scripts and styles (the icon, a small SVG, is checked by the browser test).
    const assets = [...html.matchAll(/<script[^>]*\bsrc="([^"]+)"|<link(?![^>]*rel="icon")[^>]*\bhref="([^"]+)"/g)].map(
      (match) => match[1] ?? match[2],
    )
    expect(assets.length).toBeGreaterThan(0)
    for (const url of urls) expect(url).toStartWith('/')
    expect(html).not.toMatch(/https?:\/\/(?!www\.w3\.org)/)
    for (const asset of assets) {
      const served = await test.request('GET', asset)
      expect(served.status).toBe(200)
      expect(served.headers.get('content-type')).toMatch(/javascript|css/)
      expect((await served.text()).length).toBeGreaterThan(100_000)
    }
    // The reference reads the document from the same origin and asks the UI for no web fonts from its CDN.
    expect(html).toContain('data-url="/openapi/json"')
    expect(html).toContain('withDefaultFonts&#34;:false')
  })
})
