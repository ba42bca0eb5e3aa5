import { describe, expect, it } from 'bun:test'
import type { LanguageModelV3 } from '@ai-sdk/provider'
import { createAnalystAgent } from '../../../plugins/agent/analyst-agent'
import type { AnalystTools } from '../../../plugins/agent/analyst-tools'
import { createOfflineAnalystModel } from '../../../plugins/agent/offline/offline-model'
import type { AgentEvent, AgentTurn } from '../../../plugins/chat/run/agent'

const meta = {
  cubes: [
    {
      name: 'orders',
      title: 'Orders',
      measures: [{ name: 'orders.count', type: 'count', title: 'Count' }],
      dimensions: [],
    },
  ],
}

/** An agent over the offline analyst whose model calls and tool runs are written into `log`. */
function loggedAgent(log: string[]) {
  const offline = createOfflineAnalystModel({ delayMs: 0 })
  const languageModel: LanguageModelV3 = {
    ...offline,
    doStream: (call) => {
      log.push('model')
      return offline.doStream(call)
    },
  }
  const tools: AnalystTools = {
    serviceMeta: async () => {
      log.push('tool')
      return meta
    },
    serviceSqlApi: async () => {
      log.push('tool')
      return { schema: [{ name: 'orders.count', column_type: 'number' }], data: [['42']], totalRows: 1 }
    },
  }
  return createAnalystAgent({ languageModel, tools: () => tools })
}

async function runTurn(log: string[], pause?: AgentTurn['pause']): Promise<AgentEvent[]> {
  const turn = {
    input: 'How many orders are there?',
    history: [],
    images: [],
    devMode: false,
    signal: new AbortController().signal,
    pause,
  } as unknown as AgentTurn
  const events: AgentEvent[] = []
  for await (const event of loggedAgent(log).run(turn)) events.push(event)
  return events
}

/** Events with the random message ids replaced by their order of appearance. */
function shape(events: AgentEvent[]) {
  const ids = new Map<string, number>()
  return events.map((event) =>
    'id' in event ? { ...event, id: ids.get(event.id) ?? ids.set(event.id, ids.size).get(event.id) } : event,
  )
}

describe('the analyst between its steps', () => {
  it('waits for the loop budget before every model call and every tool run, with the same answer', async () => {
    const log: string[] = []
    const paused = await runTurn(log, () => {
      log.push('pause')
      return new Promise<void>((resolve) => setImmediate(resolve))
    })
    expect(log.filter((entry) => entry === 'model').length).toBeGreaterThanOrEqual(2)
    expect(log.filter((entry) => entry === 'tool').length).toBeGreaterThanOrEqual(1)
    log.forEach((entry, index) => {
      if (entry !== 'pause') expect(log[index - 1]).toBe('pause')
    })

    const unpaused = await runTurn([])
    expect(shape(paused)).toEqual(shape(unpaused))
    expect(paused.some((event) => event.type === 'text-delta')).toBe(true)
  })
})
