import type { Metrics } from '../../../lib/metrics'
import type { ReaderHooks } from './run-readers'

/**
 * Counts the lines handed to clients (`chat_lines_sent_total`) and the clients reading a chat stream, HTTP and
 * WebSocket (`chat_readers`). Returns what each new reader is given: it counts the reader in until it closes.
 */
export function readerMetrics(metrics: Metrics): () => ReaderHooks {
  const linesSent = metrics.counter('chat_lines_sent_total', 'Chat stream lines handed to clients')
  const readers = metrics.gauge('chat_readers', 'Clients reading a chat stream (HTTP and WebSocket)')
  // One hooks object for every reader (they keep no state of their own): held streams are many.
  const hooks: ReaderHooks = { onLines: (count) => linesSent.inc({}, count), onClose: () => readers.dec() }
  return () => {
    readers.inc()
    return hooks
  }
}
