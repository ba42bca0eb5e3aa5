import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import fc from 'fast-check'
import { createLogger } from '../../lib/logger'
import { createTestApp, type TestApp } from '../helpers/app'
import {
  describeRequest,
  operationsOf,
  problemWith,
  requestArbitrary,
  type Operation,
} from '../helpers/hostile-requests'
import {
  assertHealthy,
  credentialsFor,
  FALLBACK_BODIES,
  report,
  RUNS,
  seedContent,
  toRequest,
} from '../helpers/route-fuzz'

// Every route in process, through app.handle(); test/e2e/src/route-fuzz.test.ts sends the same to a server process.
describe('every route of /openapi/json under hostile input', () => {
  let test: TestApp
  let operations: Operation[]

  const errors: string[] = []

  beforeAll(async () => {
    test = createTestApp({ logger: createLogger('error', {}, (line) => errors.push(line)) })
    const document = await (await test.request('GET', '/openapi/json')).json()
    operations = operationsOf(document as never, FALLBACK_BODIES)
  })
  afterAll(() => test.close())

  it('lists the routes it drives', () => {
    const paths = new Set(operations.map((operation) => operation.path))
    for (const path of [
      '/api/v1/deployments/{deploymentId}/sql',
      '/api/v1/embed/generate-session',
      '/api/v1/public/{accountName}/agents/{agentId}/chat/stream-chat-state',
    ])
      expect(paths).toContain(path)
    expect(operations.length).toBeGreaterThan(40)
  })

  const inProcess = 'answers every request below 500 with { error, code } errors, and stays healthy'
  it(
    inProcess,
    () =>
      report.run(inProcess, async () => {
        const handle = (request: Request) => test.app.handle(request)
        const send = (method: string, path: string, headers: Record<string, string>, body: unknown) =>
          test.request(method, path, { headers, body })
        const credentials = await credentialsFor(send)
        const valid = await seedContent(send)
        const seen = new Map<number, number>()
        const requests = fc.oneof(
          requestArbitrary(operations, credentials, valid),
          requestArbitrary(operations, credentials, valid, 'plausible'),
        )
        await report.assert(
          requests,
          async (request) => {
            const response = await report.send(request, (sent) => handle(toRequest('http://localhost', sent)))
            seen.set(response.status, (seen.get(response.status) ?? 0) + 1)
            if (process.env.FUZZ_DEBUG)
              console.log(
                response.status,
                request.method,
                request.url.slice(0, 90),
                JSON.stringify(request.headers).slice(0, 80),
                request.body?.slice(0, 120),
                (await response.clone().text()).slice(0, 160),
              )
            const problem = await problemWith(request, response)
            if (problem) throw new Error(problem)
            // Hostile input is the client's mistake: nothing of it is logged as a server error.
            if (errors.length > 0) throw new Error(`logged as a server error: ${errors.join('\n').slice(0, 2000)}`)
          },
          RUNS,
          describeRequest,
        )
        // The fuzzer reaches handlers, not only the validators in front of them.
        expect([...seen.keys()].some((status) => status < 300)).toBe(true)
        expect(seen.get(400) ?? 0).toBeGreaterThan(0)
        await assertHealthy(handle, 'http://localhost')
        expect(errors).toEqual([])
      }),
    120_000,
  )
})
