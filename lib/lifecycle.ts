/** Shutdown hooks of the feature areas, run in reverse order of registration. */
export class Lifecycle {
  private readonly hooks: Array<() => void | Promise<void>> = []
  private stopping: Promise<void> | undefined

  onShutdown(hook: () => void | Promise<void>): void {
    this.hooks.push(hook)
  }

  get isShuttingDown(): boolean {
    return this.stopping !== undefined
  }

  shutdown(): Promise<void> {
    this.stopping ??= (async () => {
      for (const hook of [...this.hooks].reverse()) await hook()
    })()
    return this.stopping
  }
}
