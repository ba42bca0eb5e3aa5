import type { AgentInfo, DeploymentInfo } from '../../auth/directory'
import type { UserAccess } from '../../auth/user-provisioner'
import type { ImageAttachment, ThreadMessage } from '../model'

/** Graph paths: the agent's own messages, its tool calls and results, and the final answer. */
export const GRAPH = {
  analyst: ['analyst'],
  tools: ['analyst', 'tools'],
  final: ['final'],
} as const satisfies Record<string, readonly string[]>

/** Everything an agent gets for one turn. */
export interface AgentTurn {
  agent: AgentInfo
  deployment: DeploymentInfo
  branch: string
  /** True on a branch other than the default one: the agent may emit `thinking`. */
  devMode: boolean
  /** The thread before this turn (without the new user message). */
  history: ThreadMessage[]
  input: string
  images: ImageAttachment[]
  /** Whose data the tools may read. */
  access: UserAccess
  signal: AbortSignal
  /**
   * Between its own steps of work (a model call, a tool run), an agent waits for this when it returns a promise: runs
   * have then held the event loop for their share, and new requests (their `__cutoff__`) go first. Work that runs
   * as one chain of promise callbacks is otherwise never cut between the events the chat layer sees.
   */
  pause?(): Promise<void> | undefined
}

/**
 * What an agent yields. Message ids are the agent's own (unique within the thread). A text message goes
 * `message-start`, any number of `text-delta` / `thinking-delta`, `message-end`; a tool call is `tool-call` then
 * `tool-result` with the same id. `message-end` may correct the message's graph path (a step found to call tools).
 * `progress` makes no line: the model is still sending what the stream does not show (a tool call's arguments,
 * reasoning outside development mode), so the run is not silent.
 */
export type AgentEvent =
  | { type: 'message-start'; id: string; graphPath: readonly string[] }
  | { type: 'text-delta'; id: string; delta: string }
  | { type: 'thinking-delta'; id: string; delta: string }
  | { type: 'message-end'; id: string; graphPath?: readonly string[] }
  | { type: 'tool-call'; id: string; name: string; input: string; graphPath?: readonly string[] }
  | { type: 'tool-result'; id: string; result: string }
  | { type: 'progress' }

/** The seam between the chat layer and whatever answers: the analyst, an LLM loop, or a script in tests. */
export interface Agent {
  run(turn: AgentTurn): AsyncIterable<AgentEvent>
}

/** Creates the agent for a configured agent row. */
export type AgentFactory = (agent: AgentInfo) => Agent

/** A failure the agent reports deliberately; its message is safe to show to the user. */
export class AgentError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'AgentError'
  }
}
