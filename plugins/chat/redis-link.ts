import { AppError } from '../../lib/errors'

/** 503 while Redis does not answer: the node cannot tell whether a thread is busy, nor reach other nodes' runs. */
export class RunRegistryUnavailableError extends AppError {
  constructor() {
    super(503, 'RUN_REGISTRY_UNAVAILABLE', 'The run registry (Redis) does not answer; please retry shortly')
    this.retryAfterSeconds = 2
  }
}

/**
 * One connection to Redis. Commands fail at once while it is down instead of queueing (a request must not hang on
 * an outage); the client reconnects by itself, and a command sent while it is disconnected connects it first.
 * Commands sent in one turn of the event loop leave in one write (Bun pipelines them).
 */
export class RedisLink {
  readonly client: Bun.RedisClient
  private connecting: Promise<void> | undefined

  constructor(url: string) {
    this.client = new Bun.RedisClient(url, {
      enableOfflineQueue: false,
      connectionTimeout: 5000,
      // Reconnects for as long as the node lives: Redis may be restarted under a running service.
      maxRetries: 1_000_000,
    })
  }

  send(command: string, args: string[]): Promise<unknown> {
    if (this.client.connected) return this.client.send(command, args)
    return this.connect().then(() => this.client.send(command, args))
  }

  connect(): Promise<void> {
    this.connecting ??= this.client.connect().finally(() => {
      this.connecting = undefined
    })
    return this.connecting
  }

  close(): void {
    this.client.close()
  }
}
