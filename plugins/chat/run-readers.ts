import { encodeLine, encodeLines, errorLine, type EncodedLine } from './lines'
import type { Run } from './run-registry'

/** What one response sends: its own leading lines (the `__cutoff__`), then a run's log, or fixed lines only. */
export interface TurnSource {
  head: EncodedLine[]
  run?: Run
  /**
   * Settles when the head may go out: a new run's `__cutoff__` names its thread, which exists once the turn's start
   * is committed (the group commit right after the request). Never rejects.
   */
  ready?: Promise<unknown>
}

export interface ReaderHooks {
  /** Called for every line handed to the transport. */
  onLines?(count: number): void
  /** Called once when the reader ends, whatever the reason. */
  onClose?(): void
}

export const TOO_SLOW = encodeLine(errorLine('The connection fell too far behind the run; rejoin with the same messageId'))

/**
 * The NDJSON body of a turn. Pull-based: lines are copied out only as fast as the client reads, so a slow client
 * costs a cursor, not a buffer. A reader whose cursor falls more than `maxLagLines` behind the live run is dropped
 * with an error line; it never slows the run or other readers. Cancelling (client gone) detaches the reader only.
 */
export function ndjsonStream(source: TurnSource, maxLagLines: number, hooks: ReaderHooks = {}): ReadableStream<Uint8Array> {
  const { run } = source
  let cursor = 0
  let headSent = false
  let closed = false
  let unlisten: (() => void) | undefined
  let wake: (() => void) | undefined
  let settle: (() => void) | undefined

  const close = (controller: ReadableStreamDefaultController<Uint8Array>) => {
    if (closed) return
    closed = true
    unlisten?.()
    controller.close()
    hooks.onClose?.()
  }

  /** Enqueues what the log holds beyond the cursor; true when something was sent. */
  const drain = (controller: ReadableStreamDefaultController<Uint8Array>): boolean => {
    if (!run || closed) return false
    const end = run.lines.length
    if (cursor >= end) return false
    controller.enqueue(encodeLines(run.lines, cursor, end))
    hooks.onLines?.(end - cursor)
    cursor = end
    return true
  }

  // Runs on every appended line, whether or not the client is reading: a reader that lets the live log run too far
  // ahead is dropped. The others are woken once per turn of the event loop, not once per line: every line the run
  // produced meanwhile then goes out in one chunk, one socket write (a fast agent emits dozens of lines in a burst).
  let wakeScheduled = false
  const wakeSoon = () => {
    wakeScheduled = false
    wake?.()
  }
  const onAppend = (controller: ReadableStreamDefaultController<Uint8Array>) => () => {
    if (closed) return
    if (run!.lines.length - cursor > maxLagLines) return drop(controller)
    if (wake && !wakeScheduled) {
      wakeScheduled = true
      setImmediate(wakeSoon)
    }
  }

  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (closed) return
      if (!headSent) {
        if (source.ready) await source.ready
        if (closed) return
        headSent = true
        if (source.head.length) {
          controller.enqueue(encodeLines(source.head, 0, source.head.length))
          hooks.onLines?.(source.head.length)
        }
        if (run) unlisten = run.listen(onAppend(controller))
      }
      if (!run) return close(controller)
      if (drain(controller)) return
      if (run.done) return close(controller)
      return new Promise<void>((resolve) => {
        settle = resolve
        wake = () => {
          if (drain(controller) || run.done) {
            wake = undefined
            settle = undefined
            if (run.done && cursor >= run.lines.length) close(controller)
            resolve()
          }
        }
      })
    },
    cancel() {
      if (closed) return
      closed = true
      unlisten?.()
      hooks.onClose?.()
      settle?.()
    },
  })

  function drop(controller: ReadableStreamDefaultController<Uint8Array>) {
    closed = true
    unlisten?.()
    controller.enqueue(TOO_SLOW.bytes)
    controller.close()
    hooks.onLines?.(1)
    hooks.onClose?.()
    wake = undefined
    settle?.()
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
  const { run } = source
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
    const to = run.lines.length
    for (; cursor < to; cursor++) socket.send(run.lines[cursor].json)
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
  if (source.ready) void source.ready.then(start)
  else start()
  return { done, stop: end }
}
