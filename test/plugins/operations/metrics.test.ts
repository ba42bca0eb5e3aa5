import { afterEach, describe, expect, it } from 'bun:test'
import { createAgentFactory } from '../../../plugins/agent/agent-factory'
import type { AnalystTools } from '../../../plugins/agent/analyst-tools'
import { Metrics } from '../../../lib/metrics'
import { version } from '../../../package.json'
import { apiKey, createTestApp, type TestApp } from '../../helpers/app'
import { chatBase, readLines } from '../../helpers/chat'
import { startFakeOpenAI } from '../../helpers/fake-openai'
import { keys } from '../../helpers/fixtures'

let test: TestApp | undefined
let fake: ReturnType<typeof startFakeOpenAI> | undefined
afterEach(async () => {
  await test?.close()
  test = undefined
  fake?.stop()
  fake = undefined
})

const scrape = async (app: TestApp) => {
  const response = await app.request('GET', '/metrics')
  expect(response.status).toBe(200)
  expect(response.headers.get('content-type')).toContain('text/plain')
  return response.text()
}

/** The value of one series line, e.g. `acs_llm_calls_total{outcome="ok"}`; undefined when absent. */
const valueOf = (text: string, series: string) => {
  const line = text.split('\n').find((entry) => entry.startsWith(`${series} `))
  return line === undefined ? undefined : Number(line.slice(series.length + 1))
}

describe('GET /metrics', () => {
  it('carries the process metrics and the build_info gauge with the version', async () => {
    test = createTestApp()
    // The CPU the process spent before its first scrape is counted: the counters start at the process's start.
    const spent = process.cpuUsage()
    const text = await scrape(test)
    expect(valueOf(text, 'process_cpu_seconds_total')).toBeGreaterThanOrEqual((spent.user + spent.system) / 1e6 - 0.01)
    expect(valueOf(text, 'process_resident_memory_bytes')).toBeGreaterThan(1_000_000)
    expect(valueOf(text, 'nodejs_eventloop_lag_seconds')).toBeGreaterThanOrEqual(0)
    expect(text).toMatch(
      new RegExp(`^acs_build_info\\{version="${version.replace(/\./g, '\\.')}",runtime="bun [^"]+"\\} 1$`, 'm'),
    )
    // Every value is a number a Prometheus server can parse.
    for (const line of text.split('\n').filter((entry) => entry && !entry.startsWith('#')))
      expect(Number.isNaN(Number(line.slice(line.lastIndexOf(' ') + 1)))).toBe(false)
  })

  it('uses METRICS_PREFIX for the service’s own series', async () => {
    test = createTestApp({ config: { metricsPrefix: 'analytics' } })
    const text = await scrape(test)
    expect(text).toContain('analytics_build_info{')
    expect(text).not.toContain('acs_build_info')
  })

  it('counts semantic queries with their cache use, outcome and duration', async () => {
    test = createTestApp()
    const query = { query: 'SELECT MEASURE(orders.count) FROM orders' }
    for (let attempt = 0; attempt < 2; attempt++) {
      const response = await test.request('POST', '/api/v1/deployments/1/sql', {
        headers: apiKey(keys.admin),
        body: query,
      })
      expect(response.status).toBe(200)
    }
    const invalid = await test.request('POST', '/api/v1/deployments/1/sql', {
      headers: apiKey(keys.admin),
      body: { query: 'SELECT nope FROM nowhere' },
    })
    expect(invalid.status).toBe(400)
    const text = await scrape(test)
    expect(valueOf(text, 'acs_semantic_queries_total{cache="miss",outcome="error"}')).toBe(1)
    expect(valueOf(text, 'acs_semantic_queries_total{cache="miss",outcome="ok"}')).toBe(1)
    expect(valueOf(text, 'acs_semantic_queries_total{cache="hit",outcome="ok"}')).toBe(1)
    expect(valueOf(text, 'acs_semantic_query_duration_seconds_count{cache="miss"}')).toBe(1)
    expect(valueOf(text, 'acs_semantic_query_duration_seconds_count{cache="hit"}')).toBe(1)
  })

  it('counts model calls, their duration, the tokens reported and the failures', async () => {
    fake = startFakeOpenAI([
      { text: ['Hello', ' there.'] },
      { status: 500, body: '{"error":{"message":"model overloaded"}}' },
    ])
    const metrics = new Metrics()
    const tools: AnalystTools = {
      serviceMeta: async () => ({ cubes: [] }),
      serviceSqlApi: async () => ({ error: 'unused' }),
    }
    test = createTestApp({
      metrics,
      agents: createAgentFactory({
        llm: { baseUrl: fake.url, apiKey: 'sk-test', model: 'fake' },
        analystDelayMs: 0,
        tools: () => tools,
        metrics,
      }),
    })
    const ask = (input: string) =>
      test!.request('POST', `${chatBase()}/stream-chat-state`, {
        headers: apiKey(keys.admin),
        body: { input, sessionSettings: { externalId: 'llm-user' } },
      })
    await readLines(await ask('Hi'))
    const failed = await readLines(await ask('Hi again'))
    expect(failed.at(-1)).toHaveProperty('error')
    const text = await scrape(test)
    expect(valueOf(text, 'acs_llm_calls_total{outcome="ok"}')).toBe(1)
    expect(valueOf(text, 'acs_llm_calls_total{outcome="error"}')).toBeGreaterThanOrEqual(1)
    expect(valueOf(text, 'acs_llm_errors_total')).toBeGreaterThanOrEqual(1)
    expect(valueOf(text, 'acs_llm_tokens_total{kind="input"}')).toBe(12)
    expect(valueOf(text, 'acs_llm_tokens_total{kind="output"}')).toBe(3)
    expect(valueOf(text, 'acs_llm_call_duration_seconds_count{outcome="ok"}')).toBe(1)
  })

  it('exposes the admission series the chat admission records', async () => {
    const metrics = new Metrics()
    test = createTestApp({ metrics })
    metrics.admissionQueued.inc()
    metrics.admissionRefused.inc({ limit: 'user' })
    const text = await scrape(test)
    expect(valueOf(text, 'acs_chat_admission_queued')).toBe(1)
    expect(valueOf(text, 'acs_chat_admission_refused_total{limit="user"}')).toBe(1)
  })
})
