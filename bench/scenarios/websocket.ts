import { AGENTS, type BenchContext } from '../lib/context'
import { alternate, medianOf, summarize, type LoadResult } from '../lib/load'
import type { TurnOutcome } from '../lib/ndjson-client'
import type { Row } from '../lib/report'
import { wallMs } from '../lib/stats'
import { protocolBody } from './protocol'

/** A socket that runs turns one after another: send a request, count frames until `__state__` or an error line. */
async function openSocket(url: string, headers: Record<string, string>) {
  const socket = new WebSocket(url, { headers } as never)
  await new Promise<void>((resolve, reject) => {
    socket.onopen = () => resolve()
    socket.onerror = () => reject(new Error(`WebSocket ${url} failed to open`))
  })
  let finish: ((outcome: TurnOutcome) => void) | undefined
  let outcome: TurnOutcome = { ok: false, lines: 0, bytes: 0, totalMs: 0 }
  let sentAt = 0
  socket.onmessage = (event) => {
    const text = event.data as string
    outcome.lines++
    outcome.bytes += text.length + 1
    const isError = text.startsWith('{"error":')
    if (isError || text.startsWith('{"id":"__state__"')) {
      outcome.ok = !isError
      if (isError) outcome.failure = 'error line'
      outcome.totalMs = wallMs() - sentAt
      finish?.(outcome)
    }
  }
  socket.onclose = () => finish?.({ ...outcome, ok: false, failure: 'socket closed' })
  return {
    turn(body: string): Promise<TurnOutcome> {
      outcome = { ok: false, lines: 0, bytes: 0, totalMs: 0 }
      sentAt = wallMs()
      return new Promise((resolve) => {
        finish = resolve
        socket.send(body)
      })
    },
    close: () => socket.close(),
  }
}

async function socketLoop(
  context: BenchContext,
  url: string,
  headers: Record<string, string>,
  concurrency: number,
  durationMs: number,
): Promise<LoadResult> {
  const sockets = await Promise.all(Array.from({ length: concurrency }, () => openSocket(url, headers)))
  const outcomes: TurnOutcome[] = []
  const startedAt = wallMs()
  const deadline = startedAt + durationMs
  await Promise.all(
    sockets.map(async (socket, slot) => {
      while (wallMs() < deadline) outcomes.push(await socket.turn(protocolBody(context, slot)))
    }),
  )
  const result = summarize(outcomes, (wallMs() - startedAt) / 1000)
  for (const socket of sockets) socket.close()
  return result
}

/** The protocol turn over one WebSocket per client at 32: target ≥ 100% of the HTTP protocol turn. */
export async function websocketScenario(context: BenchContext): Promise<Row[]> {
  const { config } = context
  const concurrency = config.websocket.concurrency
  const serviceUrl = context.chatUrl(AGENTS.protocol, 'ws').replace(/^http/, 'ws')
  const baselineUrl = `${context.baselineUrl.replace(/^http/, 'ws')}/ws/protocol`
  const auth = { authorization: context.headers.authorization }
  const service = () => socketLoop(context, serviceUrl, auth, concurrency, config.roundMs)
  const baseline = () => socketLoop(context, baselineUrl, {}, concurrency, config.roundMs)
  await socketLoop(context, serviceUrl, auth, concurrency, config.roundMs / 2)
  await baseline()
  const result = await alternate(config.rounds, service, baseline)
  const value = medianOf(result.a, (round) => round.perSecond)
  const base = medianOf(result.b, (round) => round.perSecond)
  const failures = result.a.reduce((sum, round) => sum + round.failures, 0)
  const http = context.figures[`protocol${concurrency}`]
  context.log(`  websocket at ${concurrency}: ${value.toFixed(0)} turns/s, baseline ${base.toFixed(0)}`)
  return [
    {
      scenario: `websocket protocol turn (concurrency ${concurrency})`,
      figure: 'turns/s',
      value,
      unit: '/s',
      baseline: base,
      ratio: value / base,
      ...(http !== undefined && {
        target: `≥ 100% of HTTP protocol turn (${http.toFixed(0)}/s)`,
        met: failures === 0 && value >= http,
      }),
      note:
        failures > 0
          ? `${failures} failed turns: ${result.a.flatMap((round) => round.failureSamples).join('; ')}`
          : undefined,
    },
  ]
}
