/**
 * What the nodes of one service tell each other, apart from the lines of runs (those go through the run registry).
 *
 * - `embed-session-revoked`: an embed session of the account was revoked. It names only the account: each node checks
 *   the embed sockets and streams of that account again, and those of the revoked session close (the check reads the
 *   session).
 * - `embed-sessions-recheck`: this node was cut off from the others and may have missed revocations, so it checks
 *   every embed session it serves. A node tells only itself; it never goes to other nodes.
 * - `policies-changed`: a deployment's AI engineer settings (its chat thread policies) changed; nodes that keep them
 *   in memory read them again.
 * - `user-changed`: a stored user's row, groups or attribute values changed; nodes that keep users' access in memory
 *   read that user again (`plugins/auth/user-changes.ts`).
 * - `bootstrap-applied`: a node applied the bootstrap file as it started, which may have revoked, demoted or
 *   rescoped API keys, or changed accounts, deployments (their service-token settings) and agents; nodes that keep
 *   them in memory read them again.
 * - `abort`: stop the run `runId` (published by the node that was asked to, heard by the node that runs it).
 * - `ship`: a reader on another node wants the run `runId`: its node starts sending the run's lines to Redis. Published
 *   by the registry's lookup scripts inside Redis, once per run a reader first asks for.
 *
 * The names are what goes over the wire: nodes of two releases side by side must understand each other.
 */
export type ClusterEvent =
  | { type: 'embed-session-revoked'; accountId: number }
  | { type: 'embed-sessions-recheck' }
  | { type: 'policies-changed'; deploymentId: number }
  | { type: 'user-changed'; accountId: number; userId: number }
  | { type: 'bootstrap-applied' }
  | { type: 'abort'; runId: string; reason: string }
  | { type: 'ship'; runId: string }

export type ClusterListener = (event: ClusterEvent) => void

/**
 * Events between the nodes of one service: every node's listeners hear every event published on any node, the
 * publishing node's own at once. Delivery to other nodes is at most once (a node cut off meanwhile misses some and
 * tells itself `embed-sessions-recheck` once it is back). Two implementations: this process alone, or Redis pub/sub.
 */
export interface ClusterBus {
  /** Whether events reach other nodes (false: this process is the only node). */
  readonly shared: boolean
  /**
   * Tells every node, this one first (its listeners have heard it when this returns). Rejects when the other nodes
   * could not be told. News of a change already stored (a revocation, changed policies) reaches them once it can, in
   * order; an abort does not (its caller is told it failed, and asks again).
   */
  publish(event: ClusterEvent): Promise<void>
  /** Calls `listener` with every event; returns the function that stops it. */
  subscribe(listener: ClusterListener): () => void
  /** Throws when the other nodes cannot be reached (readiness). */
  check(): Promise<void>
  /** Stops listening and closes connections. */
  close(): Promise<void>
}

/** The bus of a process that serves alone: events go to its own listeners. */
export class MemoryClusterBus implements ClusterBus {
  readonly shared = false
  private readonly listeners = new Set<ClusterListener>()

  async publish(event: ClusterEvent): Promise<void> {
    for (const listener of this.listeners) listener(event)
  }

  subscribe(listener: ClusterListener): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  async check(): Promise<void> {}

  async close(): Promise<void> {
    this.listeners.clear()
  }
}
