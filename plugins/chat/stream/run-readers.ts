import { encodeLine, encodeLines, errorLine, type EncodedLine, type LineView } from './lines'
import type { Run } from '../registry/run'

/** What one response sends: its own leading lines (the `__cutoff__`), then a run's log, or fixed lines only. */
export interface TurnSource {
  head: EncodedLine[]
  run?: Run
  /** How this response sees the run's lines, when not as they are (a joiner outside development mode). */
  view?: LineView
}

export interface ReaderHooks {
  /** Called for every line handed to the transport. */
  onLines?(count: number): void
  /** Called once when the reader ends, whatever the reason. */
  onClose?(): void
}

export const TOO_SLOW = encodeLine(
  errorLine('The connection fell too far behind the run; rejoin with the same messageId'),
)

/**
 * The NDJSON body of a turn. Pull-based: lines are copied out only as fast as the client reads, so a slow client
 * costs a cursor, not a buffer. A reader whose cursor falls more than `maxLagLines` behind the live run is dropped
 * with an error line; it never slows the run or other readers. Cancelling (client gone) detaches the reader only.
 */
export function ndjsonStream(
  source: TurnSource,
  maxLagLines: number,
  hooks: ReaderHooks = {},
): ReadableStream<Uint8Array> {
  return ndjsonReader(source, maxLagLines, hooks).stream
}

/**
 * `ndjsonStream` with a way to end it from outside: `interrupt(line)` sends `line` after what the client already has
 * and closes the stream (a credential revoked while it reads). The run goes on for its other readers.
 */
export function ndjsonReader(
  source: TurnSource,
  maxLagLines: number,
  hooks: ReaderHooks = {},
): { stream: ReadableStream<Uint8Array>; interrupt(line: EncodedLine): void } {
  const reader = new NdjsonSource(source, maxLagLines, hooks)
  // The DOM typings this project compiles with do not know Bun's direct streams; the runtime does.
  const stream = new ReadableStream<Uint8Array>(reader as unknown as UnderlyingDefaultSource<Uint8Array>)
  return { stream, interrupt: (line) => reader.interrupt(line) }
}

/**
 * The reader behind `ndjsonStream`: a direct stream (Bun writes its chunks straight to the socket, without a queue
 * and a promise round trip per chunk, which mattered with a thousand readers of one run) and a class (ten thousand
 * held streams are ten thousand of these: methods on a prototype cost nothing per stream where a set of closures
 * costs a function and a scope each). A reader that is caught up writes the next lines from the run's wake-up
 * itself, synchronously: no promise and no resumed loop per reader and line. Backpressure: when the socket does not
 * take a chunk at once, the reader waits for it, its cursor stops, and `onAppend` drops it once it is too far behind.
 */
class NdjsonSource implements Bun.DirectUnderlyingSource<Uint8Array> {
  readonly type = 'direct' as const
  private cursor = 0
  private started = false
  private closed = false
  /** A write the socket has not taken yet: lines wait until it has. */
  private writing = false
  /** The line to end with instead of the rest of the run (set by `interrupt`). */
  private interruptedBy: EncodedLine | undefined
  private controller: ReadableStreamDirectController | undefined
  /** Settles `pull`'s promise: Bun ends the response once it settles, so it does when the reader ends. */
  private finished: { resolve(): void; reject(error: unknown): void } | undefined
  private wakeScheduled = false
  /** Called on every appended line (bound once, it is also the key to stop listening). */
  private readonly listener = () => this.onAppend()
  private readonly wakeSoon = () => {
    this.wakeScheduled = false
    this.pump()
  }
  private readonly written = () => {
    this.writing = false
    this.pump()
  }
  private readonly failed = (error: unknown) => this.fail(error)

  constructor(
    private readonly source: TurnSource,
    private readonly maxLagLines: number,
    private readonly hooks: ReaderHooks,
  ) {}

  pull(controller: ReadableStreamDirectController): Promise<void> | undefined {
    // The socket calls this once; a reader calls it again after it settled, which is only once the turn is sent.
    if (this.started) return undefined
    this.started = true
    this.controller = controller
    const { head, run } = this.source
    if (head.length) {
      controller.write(encodeLines(head, 0, head.length))
      this.hooks.onLines?.(head.length)
    }
    if (!run) {
      this.close()
      return undefined
    }
    return new Promise<void>((resolve, reject) => {
      this.finished = { resolve, reject }
      run.listen(this.listener)
      this.pump()
    })
  }

  /** Ends the stream with `line` after what was sent so far; the run goes on for its other readers. */
  interrupt(line: EncodedLine): void {
    if (this.closed || this.interruptedBy) return
    this.interruptedBy = line
    // A reader that has not started yet ends with it as soon as the socket asks for its first chunk.
    if (this.finished) this.pump()
  }

  cancel(): void {
    if (this.closed) return
    this.closed = true
    this.source.run?.unlisten(this.listener)
    this.hooks.onClose?.()
    this.finished?.resolve()
  }

  /**
   * Writes what the run has published and this reader has not sent, until it is caught up, the socket asks it to
   * wait, or the run is done. Runs from a wake-up shared by every reader of the run: whatever goes wrong with this
   * reader's socket ends this reader only.
   */
  private pump(): void {
    const run = this.source.run!
    try {
      while (!this.closed && !this.writing) {
        if (this.interruptedBy) return this.endWith(this.interruptedBy)
        const end = run.published
        if (this.cursor >= end) {
          if (run.done) this.close()
          return
        }
        const bytes = encodeLines(run.lines, this.cursor, end, run.readerCount > 1, this.source.view)
        this.hooks.onLines?.(end - this.cursor)
        this.cursor = end
        // No flush: a chunk under the sink's high-water mark waits in its buffer for Bun's auto-flush, which sends
        // it once this turn of the event loop has run its microtasks, so the line still leaves at once, without a
        // second call into the sink per reader and line (a thousand readers of a run at a line every 10 ms).
        const written = this.controller!.write(bytes)
        if (written instanceof Promise) {
          this.writing = true
          written.then(this.written, this.failed)
        }
      }
    } catch (error) {
      this.fail(error)
    }
  }

  // Runs on every publication of the log, whether or not the client is reading: a reader that lets the live log run
  // too far ahead is dropped. The others are woken once per publication, not once per line: the lines a commit
  // released (a fast agent emits dozens in a burst) then go out in one chunk, one socket write.
  private onAppend(): void {
    if (this.closed) return
    if (this.source.run!.published - this.cursor > this.maxLagLines) return this.drop()
    if (!this.writing && !this.wakeScheduled) {
      this.wakeScheduled = true
      this.source.run!.wakeLater(this.wakeSoon)
    }
  }

  private close(): void {
    if (this.closed) return
    this.closed = true
    this.source.run?.unlisten(this.listener)
    this.controller?.close()
    this.hooks.onClose?.()
    this.finished?.resolve()
  }

  /** The socket refused a write: the reader ends, and Bun is told through `pull`'s promise. */
  private fail(error: unknown): void {
    if (!this.closed) {
      this.closed = true
      this.source.run?.unlisten(this.listener)
      this.hooks.onClose?.()
    }
    this.finished?.reject(error)
  }

  /** Ends the stream with `line` instead of the rest of the run. */
  private endWith(line: EncodedLine): void {
    this.closed = true
    this.source.run?.unlisten(this.listener)
    this.controller!.write(line.bytes)
    this.controller!.close()
    this.hooks.onLines?.(1)
    this.hooks.onClose?.()
    this.finished?.resolve()
  }

  /** Too far behind the live run: the error line asking to rejoin, and the reader is let go. */
  private drop(): void {
    this.endWith(TOO_SLOW)
  }
}

export interface LineSocket {
  send(json: string): void
  /** Bytes queued in the socket and not yet written. */
  bufferedAmount(): number
  /** Runs `sending` with the socket corked: its frames leave in one write. */
  cork?(sending: () => void): void
}

/**
 * Sends a turn over a WebSocket, one line a frame, and resolves when the turn's last line is sent (or the reader is
 * dropped or stopped). Sending is push-based; a socket whose unsent bytes exceed `maxBufferedBytes` is dropped from
 * the run with an error line instead of being waited for. With `coalesce`, the socket is served once per turn of
 * the event loop rather than once per line, corked: a burst of lines then leaves in one write, not one a frame.
 */
export function pipeTurnToSocket(
  source: TurnSource,
  socket: LineSocket,
  maxBufferedBytes: number,
  hooks: ReaderHooks = {},
  options: { coalesce?: boolean } = {},
): { done: Promise<void>; stop(): void } {
  const { run, view } = source
  let cursor = 0
  let stopped = false
  let finish: () => void = () => {}
  const done = new Promise<void>((resolve) => {
    finish = resolve
  })
  let unlisten: (() => void) | undefined

  const end = () => {
    if (stopped) return
    stopped = true
    unlisten?.()
    hooks.onClose?.()
    finish()
  }
  const sendAll = (lines: EncodedLine[]) => {
    for (const line of lines) socket.send(line.json)
    hooks.onLines?.(lines.length)
  }
  const pump = () => {
    if (stopped || !run) return
    if (socket.bufferedAmount() > maxBufferedBytes) {
      socket.send(TOO_SLOW.json)
      hooks.onLines?.(1)
      return end()
    }
    const from = cursor
    const to = run.published
    for (; cursor < to; cursor++) socket.send((view ? view(run.lines[cursor]) : run.lines[cursor]).json)
    if (to > from) hooks.onLines?.(to - from)
    if (run.done) end()
  }

  const corked = (sending: () => void) => (socket.cork ? socket.cork(sending) : sending())
  let scheduled = false
  const pumpSoon = () => {
    if (scheduled) return
    scheduled = true
    setImmediate(() => {
      scheduled = false
      corked(pump)
    })
  }
  const start = () => {
    if (stopped) return
    corked(() => sendAll(source.head))
    if (!run) end()
    else {
      unlisten = run.listen(options.coalesce ? pumpSoon : pump)
      corked(pump)
    }
  }
  start()
  return { done, stop: end }
}
