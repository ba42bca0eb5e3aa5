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

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0) return signal.aborted ? Promise.reject(signal.reason) : Promise.resolve()
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal.reason)
    }
    signal.addEventListener('abort', onAbort, { once: true })
  })
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
      const nextId = () => crypto.randomUUID()
      for (const step of steps) {
        if (step.kind === 'wait') {
          await abortable(step.until, turn.signal)
        } else if (step.kind === 'fail') {
          throw new AgentError(step.message)
        } else if (step.kind === 'tool') {
          const id = nextId()
          yield { type: 'tool-call', id, name: step.name, input: JSON.stringify(step.input) }
          await sleep(step.delayMs ?? 0, turn.signal)
          yield { type: 'tool-result', id, result: JSON.stringify(step.result) }
        } else {
          const id = nextId()
          yield { type: 'message-start', id, graphPath: step.graphPath ?? GRAPH.final }
          if (step.thinking && turn.devMode) yield { type: 'thinking-delta', id, delta: step.thinking }
          for (const [index, chunk] of step.chunks.entries()) {
            if (step.hold && step.hold.after === index) await abortable(step.hold.until, turn.signal)
            await sleep(step.delayMs ?? 0, turn.signal)
            yield { type: 'text-delta', id, delta: chunk }
          }
          yield { type: 'message-end', id }
        }
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
