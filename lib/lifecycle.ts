/**
 * How the feature areas stop, in two phases. Drain hooks run first, in order of registration, while the server still
 * serves what is in flight: they end what would keep a request open (active chat runs, chat WebSockets). Shutdown
 * hooks run once the server has stopped, in reverse order of registration: they close what requests used.
 */
export class Lifecycle {
  private readonly drainHooks: Array<() => void | Promise<void>> = []
  private readonly hooks: Array<() => void | Promise<void>> = []
  private draining: Promise<void> | undefined
  private stopping: Promise<void> | undefined

  onDrain(hook: () => void | Promise<void>): void {
    this.drainHooks.push(hook)
  }

  onShutdown(hook: () => void | Promise<void>): void {
    this.hooks.push(hook)
  }

  /** From the start of the drain: readiness fails and new work is refused. */
  get isShuttingDown(): boolean {
    return this.draining !== undefined
  }

  /** Starts the shutdown: new work is refused from now on, and what is in flight is brought to an end. */
  drain(): Promise<void> {
    this.draining ??= (async () => {
      for (const hook of this.drainHooks) await hook()
    })()
    return this.draining
  }

  /** Drains (if not done yet), then closes every feature area. */
  shutdown(): Promise<void> {
    this.stopping ??= (async () => {
      await this.drain()
      for (const hook of [...this.hooks].reverse()) await hook()
    })()
    return this.stopping
  }
}
