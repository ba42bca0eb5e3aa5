import { asStorageUnavailable } from '../../../db/storage-errors'
import type { ClusterBus } from '../../../lib/cluster-bus'
import { AppError } from '../../../lib/errors'
import { encodeLine, errorLine } from './lines'
import { ndjsonReader, type ReaderHooks, type TurnSource } from './run-readers'
import { SocketsByAccount } from './socket-session'

/** A reader of an embed session (its socket, or an HTTP stream it reads), checked again on a revocation. */
export interface EmbedReader {
  recheck(): Promise<void>
}

/**
 * The readers embed sessions hold open on this node, by account. An embed session's tokens stop working at once when
 * it is revoked, also for what it is reading: a revocation on any node (announced on the cluster bus) makes this node
 * check the readers of that account again, and those of the revoked session end. Back on the bus after losing it
 * (announcements made meanwhile never came), it checks every one.
 */
export class EmbedReaders {
  private readonly byAccount = new SocketsByAccount<EmbedReader>()

  add(accountId: number, reader: EmbedReader): void {
    this.byAccount.add(accountId, reader)
  }

  delete(accountId: number, reader: EmbedReader): void {
    this.byAccount.delete(accountId, reader)
  }

  /** Follows the bus's revocations; returns the function that stops it. */
  listen(bus: Pick<ClusterBus, 'subscribe'>): () => void {
    return bus.subscribe((event) => {
      if (event.type === 'embed-session-revoked')
        for (const reader of this.byAccount.of(event.accountId)) void reader.recheck()
      else if (event.type === 'embed-sessions-recheck') for (const reader of this.byAccount.all()) void reader.recheck()
    })
  }

  /**
   * The NDJSON stream of `source` for an embed session of `accountId`, watched while it is read: once `reauthenticate`
   * refuses the session's token, the stream ends with the refusal's error line. A database that does not answer can
   * neither confirm nor refuse: the stream goes on, and the next request checks again.
   */
  ndjsonStream(
    source: TurnSource,
    options: { accountId: number; reauthenticate(): Promise<unknown>; maxLagLines: number; hooks: ReaderHooks },
  ): ReadableStream<Uint8Array> {
    const { accountId, hooks } = options
    const watched: EmbedReader = {
      async recheck() {
        try {
          await options.reauthenticate()
        } catch (error) {
          if (error instanceof AppError && error.status < 500 && !asStorageUnavailable(error))
            reader.interrupt(encodeLine(errorLine(error.message)))
        }
      },
    }
    const reader = ndjsonReader(source, options.maxLagLines, {
      onLines: hooks.onLines,
      onClose: () => {
        this.delete(accountId, watched)
        hooks.onClose?.()
      },
    })
    this.add(accountId, watched)
    return reader.stream
  }
}
