import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { TEST_DEMO_DATA } from '../../../helpers/demo-data'
import { serverDatabase, type ServerDatabase } from '../../../helpers/server-database'
import { startServerProcess, type ServerProcess } from '../../../../harness/server-process'

/** The body limit over a real listening server: Bun's own limit answers with an empty body, the app's with JSON. */
const LIMIT = 2048
const key = 'ak_body_limit_0123456789'
const TOO_LARGE = { error: `Request body is larger than ${LIMIT} bytes`, code: 'PAYLOAD_TOO_LARGE' }
const dir = mkdtempSync(join(tmpdir(), 'body-limit-'))
let server: ServerProcess | undefined
let database: ServerDatabase | undefined

beforeAll(async () => {
  writeFileSync(
    join(dir, 'bootstrap.yaml'),
    `accounts:
  - name: acme
    plan: enterprise
    apiKeys: [{ name: admin, key: ${key}, admin: true }]
    deployments: [{ id: 1, name: One, agents: [{ id: 1, name: A }] }]
`,
  )
  database = await serverDatabase(dir)
  server = await startServerProcess({
    env: {
      ...database.env,
      BOOTSTRAP_FILE: join(dir, 'bootstrap.yaml'),
      DEMO_DATA_PATH: TEST_DEMO_DATA,
      MAX_BODY_BYTES: String(LIMIT),
    },
  })
}, 60_000)
afterAll(async () => {
  await server?.stop('SIGKILL')
  await database?.drop()
  rmSync(dir, { recursive: true, force: true })
})

const json = (size: number) => JSON.stringify({ appTheme: { primaryColor: 'x'.repeat(size) } })

/** A body sent chunked, without Content-Length, in pieces of 1 KiB. */
function chunked(text: string): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text)
  let offset = 0
  return new ReadableStream({
    pull(controller) {
      if (offset >= bytes.length) return controller.close()
      controller.enqueue(bytes.slice(offset, offset + 1024))
      offset += 1024
    },
  })
}

async function patch(path: string, body: BodyInit) {
  const response = await fetch(`${server!.url}${path}`, {
    method: path.endsWith('dbt-sync') ? 'POST' : 'PATCH',
    headers: { authorization: `Api-Key ${key}`, 'content-type': 'application/json' },
    body,
    duplex: 'half',
  } as RequestInit)
  const text = await response.text()
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    body: text === '' ? '' : JSON.parse(text),
  }
}

/** Sends only the head of a request that declares `length` bytes, and reads the answer. */
function declareOnly(length: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(server!.port, '127.0.0.1')
    let answer = ''
    const done = () => {
      socket.destroy()
      resolve(answer)
    }
    socket.setTimeout(10_000, done)
    socket.on('error', reject)
    socket.on('data', (data) => {
      answer += data.toString()
      const [, body] = answer.split('\r\n\r\n')
      if (body && body.endsWith('}')) done()
    })
    socket.on('close', done)
    socket.write(
      `PATCH /api/v1/app-config HTTP/1.1\r\nHost: localhost\r\nAuthorization: Api-Key ${key}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${length}\r\n\r\n{"applyThemeGlobally":`,
    )
  })
}

describe('request body limit over HTTP', () => {
  it('answers 413 with the JSON error body for a Content-Length just over and far over the limit', async () => {
    for (const size of [LIMIT, 64 * 1024, 4 * 1024 * 1024]) {
      expect({ size, ...(await patch('/api/v1/app-config', json(size))) }).toEqual({
        size,
        status: 413,
        type: 'application/json; charset=utf-8',
        body: TOO_LARGE,
      })
    }
    expect((await patch('/api/v1/app-config', JSON.stringify({ applyThemeGlobally: true }))).status).toBe(200)
  })

  it('answers 413 with the JSON error body for a declared length of a terabyte, without reading the body', async () => {
    const answer = await declareOnly(1_000_000_000_000)
    expect(answer).toStartWith('HTTP/1.1 413')
    expect(JSON.parse(answer.split('\r\n\r\n')[1])).toEqual(TOO_LARGE)
  })

  it('answers 413 with the JSON error body for a chunked body over the limit, and takes chunked bodies under it', async () => {
    expect(await patch('/api/v1/app-config', chunked(json(64 * 1024)))).toMatchObject({ status: 413, body: TOO_LARGE })
    expect(await patch('/api/v1/app-config', chunked(json(LIMIT)))).toMatchObject({ status: 413, body: TOO_LARGE })
    // Optional bodies too: their parser turns a failed read into "no body", which must not hide the overflow.
    expect(
      await patch('/api/v1/deployments/1/dbt-sync', chunked(`{"branchName":"${'m'.repeat(4 * LIMIT)}"}`)),
    ).toMatchObject({ status: 413, body: TOO_LARGE })
    const small = await patch('/api/v1/app-config', chunked(JSON.stringify({ applyThemeGlobally: false })))
    expect(small).toMatchObject({ status: 200, body: { applyThemeGlobally: false } })
    expect((await fetch(`${server!.url}/healthz`)).status).toBe(200)
  })
})
