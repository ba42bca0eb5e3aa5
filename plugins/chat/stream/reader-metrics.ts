import type { Metrics } from '../../../lib/metrics'
import type { ReaderHooks } from './run-readers'

/**
 * Counts the lines handed to clients (`chat_lines_sent_total`) and the clients reading a chat stream, HTTP and
 * WebSocket (`chat_readers`). Returns what each new reader is given: it counts the reader in until it closes.
 */
export function readerMetrics(metrics: Metrics): () => ReaderHooks {
  const linesSent = metrics.counter('chat_lines_sent_total', 'Chat stream lines handed to clients')
  const readers = metrics.gauge('chat_readers', 'Clients reading a chat stream (HTTP and WebSocket)')
  // The lines of every reader woken together are added to the counter once, when that turn's callbacks are done: a
  // thousand readers of a run woken for each line are otherwise a thousand counter updates a line.
  let unsent = 0
  const count = () => {
    linesSent.inc({}, unsent)
    unsent = 0
  }
  // One hooks object for every reader (they keep no state of their own): held streams are many.
  const hooks: ReaderHooks = {
    onLines: (lines) => {
      if (unsent === 0) queueMicrotask(count)
      unsent += lines
    },
    onClose: () => readers.dec(),
  }
  return () => {
    readers.inc()
    return hooks
  }
}
