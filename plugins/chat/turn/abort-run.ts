import { ForbiddenError, NotFoundError } from '../../../lib/errors'
import type { Run } from '../registry/run'
import type { RunRegistry } from '../registry/run-registry'
import type { ThreadStore } from '../../../db/repositories/threads'
import type { AbortScope } from './participant'

/** How long an abort waits for its run to let the thread go before it answers anyway. */
const ABORT_SETTLE_MS = 5_000
/** How often it looks (each look of a run on another node asks Redis). */
const ABORT_POLL_MS = 10

/**
 * Stops a thread's active run, wherever it executes (the run ends with an error line and keeps its partial answer).
 * The thread must be of the scope's account and agent, in its deployments (else 404), and of its user unless
 * `userId` is null, an account-level caller (else 403). Resolves with whether a run was stopped, once the thread
 * takes a new message.
 */
export function createRunAborter(deps: { store: ThreadStore; registry: RunRegistry }) {
  const { store, registry } = deps

  /**
   * Resolves once the thread has no active run (on any node), or after a bounded wait: an aborted run still stores
   * its partial answer before it lets the thread go, and a client told 204 sends its next message at once (it was
   * 'Streaming for thread is in progress' for about 20 ms).
   */
  async function runEnded(chatId: string, aborted: Run | undefined): Promise<void> {
    if (!aborted) return
    const deadline = Date.now() + ABORT_SETTLE_MS
    // Only the aborted run is waited for: one another request started on the thread meanwhile is not.
    const same = (run: Run | undefined) => run?.key.messageId === aborted.key.messageId
    for (
      let run = await registry.forChat(chatId);
      run && !run.done && same(run);
      run = await registry.forChat(chatId)
    ) {
      if (Date.now() >= deadline) return
      await Bun.sleep(ABORT_POLL_MS)
    }
  }

  return async function abort(chatId: string, scope: AbortScope): Promise<boolean> {
    // A run's thread may still be among the writes not flushed yet: it is stored before it is looked up.
    if (await registry.forChat(chatId)) await store.flushWrites()
    const thread = await store.thread(chatId)
    if (
      !thread ||
      thread.accountId !== scope.accountId ||
      thread.agentId !== scope.agentId ||
      (scope.deploymentIds !== null && !scope.deploymentIds.includes(thread.deploymentId))
    )
      throw new NotFoundError(`Chat ${chatId} not found`, 'CHAT_NOT_FOUND')
    if (scope.userId !== null && thread.userId !== scope.userId)
      throw new ForbiddenError('This chat belongs to another user', 'CHAT_NOT_OWNED')
    const running = await registry.forChat(chatId)
    const stopped = await registry.abort(chatId, 'Run aborted')
    if (stopped) await runEnded(chatId, running)
    return stopped
  }
}
