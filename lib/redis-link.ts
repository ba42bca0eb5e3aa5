/**
 * How long a command may go unanswered: as long as the readiness check waits for Redis. A Redis that accepts
 * connections but never answers (stopped, swapping, stuck on a slow script) must not hold a request forever.
 */
export const COMMAND_DEADLINE_MS = 2000

/** The SHA-1 of each script sent, as `EVALSHA` names it (the scripts are a few constants). */
const digests = new Map<string, string>()

/**
 * One connection to Redis. Commands fail at once while it is down instead of queueing (a request must not hang on
 * an outage), and fail after a deadline while it does not answer; a command sent while it is disconnected connects it
 * first (one attempt, shared by the commands that wait for it), so the link comes back by itself once Redis does.
 * Commands sent in one turn of the event loop leave in one write (Bun pipelines them).
 */
export class RedisLink {
  readonly client: Bun.RedisClient
  private connecting: Promise<void> | undefined
  private closed = false
  /** Counts the connections dropped after a deadline, so a late deadline never drops the connection after it. */
  private generation = 0
  private connectedOnce = false

  /** `onReconnect` is called once a connection is made again after the first (Redis may have lost its data). */
  constructor(
    url: string,
    onClose?: () => void,
    private readonly onReconnect?: () => void,
  ) {
    this.client = new Bun.RedisClient(url, {
      enableOfflineQueue: false,
      autoReconnect: false,
      connectionTimeout: COMMAND_DEADLINE_MS,
    })
    if (onClose) this.client.onclose = () => onClose()
  }

  /**
   * Sends one command; it fails if Redis has not answered within `deadlineMs` (longer for a command that blocks on
   * purpose). The connection is then dropped: its replies would be out of step with its commands, and a wedged
   * connection stays wedged. Every command waiting on it fails with it; the next one connects again. A command that
   * missed its deadline may still run once Redis reads it.
   */
  send(command: string, args: string[], deadlineMs = COMMAND_DEADLINE_MS): Promise<unknown> {
    return command === 'EVAL' ? this.evaluate(args, deadlineMs) : this.dispatch(command, args, deadlineMs)
  }

  /**
   * `EVAL script numkeys ...` sent as `EVALSHA`: Redis runs the script it has cached under that digest instead of
   * reading (and hashing) its whole text on every call, a kilobyte and more a turn. A Redis that does not have it
   * (restarted, or never sent it) answers NOSCRIPT without running anything, and gets the text once.
   */
  private async evaluate(args: string[], deadlineMs: number): Promise<unknown> {
    const [script, ...rest] = args
    let digest = digests.get(script)
    if (digest === undefined) {
      digest = new Bun.CryptoHasher('sha1').update(script).digest('hex')
      digests.set(script, digest)
    }
    try {
      return await this.dispatch('EVALSHA', [digest, ...rest], deadlineMs)
    } catch (error) {
      if (!String((error as Error)?.message ?? error).startsWith('NOSCRIPT')) throw error
      return this.dispatch('EVAL', args, deadlineMs)
    }
  }

  private dispatch(command: string, args: string[], deadlineMs: number): Promise<unknown> {
    const generation = this.generation
    const sent = this.client.connected
      ? this.client.send(command, args)
      : this.connect().then(() => this.client.send(command, args))
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(new Error(`Redis did not answer ${command} within ${deadlineMs} ms`))
        this.drop(generation)
      }, deadlineMs)
      sent.then(
        (answer) => {
          clearTimeout(timer)
          resolve(answer)
        },
        (error: unknown) => {
          clearTimeout(timer)
          reject(error)
        },
      )
    })
  }

  connect(): Promise<void> {
    if (this.closed) return Promise.reject(new Error('the Redis connection is closed'))
    if (this.client.connected) return Promise.resolve()
    if (this.connecting) return this.connecting
    const connecting = this.client
      .connect()
      .then(() => {
        if (this.connectedOnce) this.onReconnect?.()
        this.connectedOnce = true
      })
      .finally(() => {
        if (this.connecting === connecting) this.connecting = undefined
      })
    this.connecting = connecting
    return connecting
  }

  close(): void {
    this.closed = true
    this.client.close()
  }

  /** Drops the connection a command missed its deadline on (unless that one is gone already). */
  private drop(generation: number): void {
    if (this.closed || generation !== this.generation) return
    this.generation++
    this.connecting = undefined
    this.client.close()
  }
}
