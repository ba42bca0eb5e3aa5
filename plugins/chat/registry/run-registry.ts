import { AppError } from '../../../lib/errors'
import type { Run, RunKey } from './run'

/** The key of a run, and the id of its row in storage. */
export interface RunStart extends RunKey {
  runId: string
  /**
   * The client chose the `messageId` (its idempotency key): the run may start only if that message is not already
   * running in another thread. An id the server made up (`<now>-message`) is unique in its process only.
   */
  clientMessageId?: boolean
  /**
   * The run limits to hold on every node together (a registry shared between nodes checks them as it claims the
   * thread; one process's admission has already checked them). `keyId` is the API key that asked for the run.
   */
  limits?: { keyId?: number; maxRunsPerUser: number; maxRunsPerKey: number }
}

/** From a shared registry's `start`: the user or the API key already has its most runs, on all nodes together. */
export class RunLimitReached extends Error {
  constructor(readonly limit: 'user' | 'key') {
    super(`run limit per ${limit} reached`)
  }
}

/** 503 while Redis does not answer: the node cannot tell whether a thread is busy, nor reach other nodes' runs. */
export class RunRegistryUnavailableError extends AppError {
  constructor() {
    super(503, 'RUN_REGISTRY_UNAVAILABLE', 'The run registry (Redis) does not answer; please retry shortly')
    this.retryAfterSeconds = 2
  }
}

/**
 * The active runs, keyed by `chatId` (one active run per thread) and by user, agent and `messageId` (so a client
 * that lost the `chatId` can still rejoin). A run leaves the registry as soon as it finishes; a request for a
 * finished `messageId` is answered from the database. Two implementations: this process's memory, or Redis, where
 * the runs of every node are visible to every node (their logs are followed, aborts are sent to their node over the
 * cluster bus).
 */
export interface RunRegistry {
  /** Whether runs are shared with other nodes. */
  readonly shared: boolean
  /** Runs executing in this process. */
  readonly size: number
  /** Readers attached to runs in this process (those of runs followed from other nodes included). */
  readonly readerCount: number
  /** The thread's active run, here or on another node. */
  forChat(chatId: string): Promise<Run | undefined>
  /** The user's active run with this agent and `messageId`, here or on another node. */
  forMessage(userId: number, agentId: number, messageId: string): Promise<Run | undefined>
  /**
   * Registers a new run in this process; undefined when the thread already has one, or when the client's `messageId`
   * of this user and agent is already running in another thread (here or on another node).
   */
  start(key: RunStart): Promise<Run | undefined>
  /** Finishes the run's log and removes it. */
  end(run: Run): void
  /** Stops the thread's active run wherever it executes; whether there was one. */
  abort(chatId: string, reason: string): Promise<boolean>
  /** Aborts every run executing in this process. */
  abortAll(reason: string): void
  /** Resolves once no run executes in this process (or after `timeoutMs`). */
  whenIdle(timeoutMs: number): Promise<void>
  /** Throws when the backend does not answer (readiness). */
  check(): Promise<void>
  /** Stops background work and closes connections (after `whenIdle`). */
  close(): Promise<void>
}

/** Resolves once `size()` is 0 (every registry calls the functions in `waiting` when it becomes so) or after `timeoutMs`. */
export function whenIdle(waiting: Set<() => void>, size: () => number, timeoutMs: number): Promise<void> {
  if (size() === 0) return Promise.resolve()
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer)
      waiting.delete(done)
      resolve()
    }
    const timer = setTimeout(done, timeoutMs)
    waiting.add(done)
  })
}
