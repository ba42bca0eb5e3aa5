import { abortable } from './abortable'
import { AgentError, GRAPH, type Agent, type AgentEvent, type AgentTurn } from './agent'

/** One step of a script. */
export type ScriptStep =
  | {
      kind: 'text'
      graphPath?: readonly string[]
      chunks: string[]
      thinking?: string
      delayMs?: number
      /** Holds the message open after `after` chunks until `until` settles (a test's gate). */
      hold?: { after: number; until: Promise<unknown> }
    }
  | { kind: 'tool'; name: string; input: unknown; result: unknown; delayMs?: number }
  /** Waits for a promise (a test's gate) before going on. */
  | { kind: 'wait'; until: Promise<unknown> }
  | { kind: 'fail'; message: string }

export interface Script {
  steps: ScriptStep[]
}

/**
 * The pauses of one turn: one abort listener for the whole turn, not one per pause (ten thousand held runs each
 * waiting out a pause would otherwise each hold a listener and two closures).
 */
class Pauses {
  private timer: ReturnType<typeof setTimeout> | undefined
  private resolve: (() => void) | undefined
  private reject: ((reason: unknown) => void) | undefined
  private readonly wake = () => {
    const { resolve } = this
    this.clear()
    resolve?.()
  }
  private readonly stop = () => {
    const { reject } = this
    this.clear()
    reject?.(this.signal.reason)
  }

  constructor(private readonly signal: AbortSignal) {
    signal.addEventListener('abort', this.stop, { once: true })
  }

  sleep(ms: number): Promise<void> {
    if (this.signal.aborted) return Promise.reject(this.signal.reason)
    if (ms <= 0) return Promise.resolve()
    return new Promise((resolve, reject) => {
      this.resolve = resolve
      this.reject = reject
      this.timer = setTimeout(this.wake, ms)
    })
  }

  dispose(): void {
    this.clear()
    this.signal.removeEventListener('abort', this.stop)
  }

  /** Forgets the pause in progress (its timer too): it is settled, or nobody waits for it any more. */
  private clear(): void {
    clearTimeout(this.timer)
    this.timer = this.resolve = this.reject = undefined
  }
}

/**
 * An agent that plays a fixed script with controllable timing: no model, no tools, the same lines every time.
 * Tests drive every protocol behaviour with it, and load tests measure the chat layer alone.
 */
export function createScriptedAgent(script: Script | ((turn: AgentTurn) => Script)): Agent {
  // The agent keeps no state between turns: one per script (a configured agent's script is made once, below).
  const known = typeof script === 'function' ? undefined : agents.get(script)
  if (known) return known
  const agent: Agent = {
    async *run(turn: AgentTurn): AsyncIterable<AgentEvent> {
      const { steps } = typeof script === 'function' ? script(turn) : script
      const pauses = new Pauses(turn.signal)
      try {
        for (const step of steps) {
          if (step.kind === 'wait') {
            await abortable(step.until, turn.signal)
          } else if (step.kind === 'fail') {
            throw new AgentError(step.message)
          } else if (step.kind === 'tool') {
            const id = crypto.randomUUID()
            yield { type: 'tool-call', id, name: step.name, input: JSON.stringify(step.input) }
            await pauses.sleep(step.delayMs ?? 0)
            yield { type: 'tool-result', id, result: JSON.stringify(step.result) }
          } else {
            const id = crypto.randomUUID()
            yield { type: 'message-start', id, graphPath: step.graphPath ?? GRAPH.final }
            if (step.thinking && turn.devMode) yield { type: 'thinking-delta', id, delta: step.thinking }
            for (let index = 0; index < step.chunks.length; index++) {
              if (step.hold && step.hold.after === index) await abortable(step.hold.until, turn.signal)
              await pauses.sleep(step.delayMs ?? 0)
              yield { type: 'text-delta', id, delta: step.chunks[index] }
            }
            yield { type: 'message-end', id }
          }
        }
      } finally {
        pauses.dispose()
      }
    },
  }
  if (typeof script !== 'function') agents.set(script, agent)
  return agent
}

const agents = new WeakMap<Script, Agent>()
const scripts = new WeakMap<Record<string, unknown>, Script>()

/**
 * The script of a `kind: scripted` agent from its bootstrap config: `{ lines, lineBytes, delayMs }` gives one final
 * message of `lines` deltas of about `lineBytes` characters each, `delayMs` apart.
 */
export function scriptFromConfig(config: Record<string, unknown> | null): Script {
  const known = config && scripts.get(config)
  if (known) return known
  const number = (key: string, fallback: number, max: number) => {
    const value = Number(config?.[key] ?? fallback)
    return Number.isFinite(value) && value >= 0 ? Math.min(value, max) : fallback
  }
  const lines = Math.max(1, Math.floor(number('lines', 20, 100_000)))
  const lineBytes = Math.max(1, Math.floor(number('lineBytes', 40, 1_000_000)))
  const delayMs = number('delayMs', 0, 3_600_000)
  const word = 'lorem ipsum dolor sit amet '
  const chunk = word.repeat(Math.ceil(lineBytes / word.length)).slice(0, lineBytes)
  const script: Script = {
    steps: [{ kind: 'text', graphPath: GRAPH.final, chunks: Array.from({ length: lines }, () => chunk), delayMs }],
  }
  // Agent configs come from the directory's remembered rows, so every turn of an agent shares one script.
  if (config) scripts.set(config, script)
  return script
}
