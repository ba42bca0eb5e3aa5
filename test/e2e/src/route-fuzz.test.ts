import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import fc from 'fast-check'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startServerProcess, type ServerProcess } from '../../../harness/server-process'
import { TEST_DEMO_DATA } from '../../helpers/demo-data'
import { keys, testBootstrap } from '../../helpers/fixtures'
import {
  describeRequest,
  operationsOf,
  problemWith,
  requestArbitrary,
  type HostileRequest,
} from '../../helpers/hostile-requests'
import {
  assertHealthy,
  credentialsFor,
  FALLBACK_BODIES,
  report,
  SERVER_RUNS,
  toRequest,
  VALID,
} from '../../helpers/route-fuzz'
import { serverDatabase, type ServerDatabase } from '../../helpers/server-database'

// The route fuzz against the server as a process, over the network; test/src/route-fuzz.test.ts runs it in process.
describe('a listening server under hostile input', () => {
  let server: ServerProcess | undefined
  let database: ServerDatabase | undefined
  let folder: string

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'route-fuzz-'))
    const bootstrap = join(folder, 'bootstrap.json')
    writeFileSync(bootstrap, JSON.stringify(testBootstrap()))
    database = await serverDatabase(folder)
    server = await startServerProcess({
      env: {
        ...database.env,
        BOOTSTRAP_FILE: bootstrap,
        DEMO_DATA_PATH: TEST_DEMO_DATA,
        ANALYST_DELAY_MS: '0',
        // Small enough that the fuzzer's large bodies meet the limit and its 413 answer.
        MAX_BODY_BYTES: '65536',
      },
    })
  }, 90_000)
  afterAll(async () => {
    await server?.stop('SIGKILL')
    await database?.drop()
    rmSync(folder, { recursive: true, force: true })
  })

  /** Sends raw bytes and reads until the server answers or closes; malformed HTTP never reaches the app. */
  function raw(port: number, bytes: string): Promise<string> {
    return new Promise((resolve) => {
      let text = ''
      const socket = connect(port, '127.0.0.1', () => socket.end(bytes))
      socket.setTimeout(5_000, () => socket.destroy())
      socket.on('data', (chunk) => (text += chunk.toString('latin1')))
      socket.on('error', () => resolve(text))
      socket.on('close', () => resolve(text))
    })
  }

  const overNetwork = 'answers hostile requests over the network below 500 and stays healthy'
  it(
    overNetwork,
    () =>
      report.run(overNetwork, async () => {
        const base = server!.url
        const document = await (await fetch(`${base}/openapi/json`)).json()
        const operations = operationsOf(document as never, FALLBACK_BODIES)
        const credentials = await credentialsFor((method, path, headers, body) =>
          fetch(`${base}${path}`, {
            method,
            headers: { ...headers, 'content-type': 'application/json' },
            body: JSON.stringify(body),
          }),
        )
        const requests = fc.oneof(
          requestArbitrary(operations, credentials, VALID),
          requestArbitrary(operations, credentials, VALID, 'plausible'),
        )
        const check = async (request: HostileRequest) => {
          const problem = await problemWith(request, await report.send(request, (sent) => fetch(toRequest(base, sent))))
          if (problem) throw new Error(problem)
        }
        await report.assert(requests, check, SERVER_RUNS, describeRequest)
        // Bursts of hostile requests at once, for what only shows when requests overlap.
        await report.assert(
          fc.array(requests, { minLength: 2, maxLength: 12 }),
          async (burst) => {
            await Promise.all(burst.map(check))
          },
          Math.ceil(SERVER_RUNS / 10),
          (burst) => burst.map(describeRequest).join('\n  '),
        )

        // Oversized bodies, declared and chunked: 413 with the JSON error body, like every other refusal.
        const oversized: HostileRequest = {
          method: 'POST',
          url: '/api/v1/deployments/1/sql',
          headers: { authorization: `Api-Key ${keys.admin}`, 'content-type': 'application/json' },
          body: JSON.stringify({ query: 'x'.repeat(200_000) }),
        }
        for (const body of [oversized.body!, new Blob([oversized.body!]).stream()]) {
          const response = await report.send(oversized, (sent) =>
            fetch(`${base}${sent.url}`, { method: sent.method, headers: sent.headers, body }),
          )
          expect(response.status).toBe(413)
          expect(await problemWith(oversized, response)).toBeUndefined()
        }

        const broken = [
          'GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n',
          'POST /api/v1/embed/session/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 50\r\n\r\n{"sessionId"',
          'POST /api/v1/embed/session/token HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\nzz\r\n{}\r\n0\r\n\r\n',
          `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(100_000)}\r\n\r\n`,
          'GARBAGE\r\n\r\n',
          'GET /api/v1/deployments/1/meta HTTP/1.1\r\nHost: x\r\nAuthorization: Api-Key \u00ff\u00fe\r\n\r\n',
        ]
        for (const bytes of broken) {
          const answer = await raw(server!.port, bytes)
          expect(answer).not.toMatch(/^HTTP\/1\.1 5\d\d/)
        }
        await assertHealthy((request) => fetch(request), base)
        expect(server!.process.exitCode).toBeNull()
        // Hostile input is the client's mistake: nothing of it is logged as a server error.
        expect(
          server!
            .output()
            .split('\n')
            .filter((line) => /"level":"(error|fatal)"/.test(line)),
        ).toEqual([])
      }),
    120_000,
  )
})
