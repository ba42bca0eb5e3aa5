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
 * an outage); a command sent while it is disconnected connects it first (one attempt, shared by the commands that
 * wait for it), so the link comes back by itself once Redis does. Commands sent in one turn of the event loop leave
 * in one write (Bun pipelines them).
 */
export class RedisLink {
  readonly client: Bun.RedisClient
  private connecting: Promise<void> | undefined
  private closed = false

  constructor(url: string, onClose?: () => void) {
    this.client = new Bun.RedisClient(url, {
      enableOfflineQueue: false,
      autoReconnect: false,
      connectionTimeout: 2000,
    })
    if (onClose) this.client.onclose = () => onClose()
  }

  send(command: string, args: string[]): Promise<unknown> {
    if (this.client.connected) return this.client.send(command, args)
    return this.connect().then(() => this.client.send(command, args))
  }

  connect(): Promise<void> {
    if (this.closed) return Promise.reject(new Error('the Redis connection is closed'))
    if (this.client.connected) return Promise.resolve()
    this.connecting ??= this.client.connect().finally(() => {
      this.connecting = undefined
    })
    return this.connecting
  }

  close(): void {
    this.closed = true
    this.client.close()
  }
}
