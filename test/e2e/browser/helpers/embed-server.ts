import { createApp } from '../../../../src/app'
import { loadConfig } from '../../../../lib/config'
import { createDeps } from '../../../../src/deps'
import { createLogger } from '../../../../lib/logger'
import { AgentError, type AgentFactory } from '../../../../plugins/chat/run/agent'
import { testAppStorage } from '../../../helpers/app'
import { gate } from '../../../helpers/gates'
import { keys } from '../../../helpers/fixtures'
import { webBootstrap, type Json } from '../../../plugins/web/helpers'
import { TEST_DEMO_DATA } from '../../../helpers/demo-data'

/**
 * Agents that can be held mid-answer: `pauseNext()` stops the next run right after the first piece of its final
 * answer (so a test can reload or stop at a known point, with no timing), `failNext()` makes the next run fail.
 */
function controllableAgents(factory: AgentFactory) {
  let pause: { reached: ReturnType<typeof gate>; release: ReturnType<typeof gate>; at: 'final' | 'start' } | undefined
  let fail = false
  const agents: AgentFactory = (info) => {
    const inner = factory(info)
    return {
      async *run(turn) {
        if (fail) {
          fail = false
          throw new AgentError('The model provider failed (HTTP 503)')
        }
        const finals = new Set<string>()
        const startHeld = pause?.at === 'start' ? pause : undefined
        if (startHeld) {
          pause = undefined
          startHeld.reached.open()
          await Promise.race([
            startHeld.release.promise,
            new Promise((resolve) => turn.signal.addEventListener('abort', resolve, { once: true })),
          ])
        }
        for await (const event of inner.run(turn)) {
          yield event
          if (event.type === 'message-start' && event.graphPath[0] === 'final') finals.add(event.id)
          const held = pause
          if (held?.at === 'final' && event.type === 'text-delta' && finals.has(event.id)) {
            pause = undefined
            held.reached.open()
            await Promise.race([
              held.release.promise,
              new Promise((resolve) => turn.signal.addEventListener('abort', resolve, { once: true })),
            ])
          }
        }
      },
    }
  }
  return {
    agents,
    /** `start`: before the run's first line instead (as a model that has not answered yet). */
    pauseNext(at: 'final' | 'start' = 'final') {
      const held = { reached: gate(), release: gate(), at }
      pause = held
      return { reached: held.reached.promise, release: held.release.open }
    },
    failNext() {
      fail = true
    },
  }
}

/**
 * The real app on 127.0.0.1, port 0, over a new database of the run's kind (SQLite in memory, or Postgres with
 * TEST_STORAGE=postgres) with the web tests' bootstrap, the offline analyst streaming with a small delay, and a clock
 * that follows real time (the browser's timers compare against it) but can be shifted. `stop()` closes everything it
 * started.
 */
export async function startEmbedServer(options: { analystDelayMs?: number } = {}) {
  const config = {
    ...loadConfig({ ANALYST_DELAY_MS: String(options.analystDelayMs ?? 10) }),
    dbPath: ':memory:',
    demoDataPath: TEST_DEMO_DATA,
  }
  const storage = testAppStorage(webBootstrap())
  let offsetMs = 0
  const clock = () => Date.now() + offsetMs
  const base = createDeps(config, storage, { logger: createLogger('silent'), clock })
  const control = controllableAgents(base.agents)
  const deps = { ...base, agents: control.agents }
  const app = createApp(deps)
  app.listen({ hostname: '127.0.0.1', port: 0, reusePort: false })
  const url = `http://127.0.0.1:${app.server!.port}`

  async function call(method: string, path: string, body?: unknown, key: string = keys.admin): Promise<Json> {
    const response = await fetch(url + path, {
      method,
      headers: { authorization: `Api-Key ${key}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    const text = await response.text()
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`)
    return text ? (JSON.parse(text) as Json) : {}
  }

  /** Same shape as the test app's `request`, so the web tests' helpers work over the network too. */
  async function request(
    method: string,
    path: string,
    init: { body?: unknown; headers?: Record<string, string> } = {},
  ): Promise<Response> {
    const headers: Record<string, string> = { ...init.headers }
    if (init.body !== undefined) headers['content-type'] ??= 'application/json'
    return fetch(url + path, { method, headers, body: init.body === undefined ? undefined : JSON.stringify(init.body) })
  }

  return {
    url,
    deps,
    request,
    storage,
    control,
    call,
    /** Shifts the server's clock against real time (negative: the server lives in the past). */
    setClockOffset(ms: number) {
      offsetMs = ms
    },
    async mintSession(body: Json, key: string = keys.admin): Promise<string> {
      return (await call('POST', '/api/v1/embed/generate-session', { deploymentId: 1, ...body }, key))
        .sessionId as string
    },
    async stop() {
      await deps.lifecycle.shutdown()
      await app.server?.stop(true)
      await storage.close()
    },
  }
}

export type EmbedServer = Awaited<ReturnType<typeof startEmbedServer>>
