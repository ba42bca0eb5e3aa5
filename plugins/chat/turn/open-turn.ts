import { MessageStored } from '../../../db/repositories/threads'
import type { ChatRequest } from '../model'
import { cutoffLine, errorLine, stateLine } from '../stream/lines'
import type { TurnSource } from '../stream/run-readers'
import { joinedRun } from './join-run'
import type { ChatParticipant } from './participant'
import type { TurnToStart } from './start-run'
import { BUSY, fixedLines, type ChatServiceOptions } from './turn-context'

/**
 * Answers one chat request: joins the active run of its `messageId` (here or on another node), reads a finished
 * message's or a thread's state from the store, or starts a run with `startRun`. A thread-level problem (unknown
 * thread, busy thread, unknown branch) is an error line, never a throw.
 */
export function createTurnOpener(
  options: Pick<ChatServiceOptions, 'store' | 'registry' | 'mayRead' | 'mayCreate'>,
  startRun: (turn: TurnToStart) => Promise<TurnSource>,
) {
  const { store, registry } = options

  // A running turn's lines went out once saved: the thread as stored holds everything its clients were sent.
  const stateOf = async (chatId: string, devMode: boolean): Promise<TurnSource> =>
    fixedLines(cutoffLine(chatId, false), stateLine(await store.messages(chatId, devMode)))

  return async function openTurn(request: ChatRequest, participant: ChatParticipant): Promise<TurnSource> {
    const { deployment, userId } = participant
    const running = request.chatId !== undefined ? await registry.forChat(request.chatId) : undefined
    if (running) await store.flushWrites()
    const branch = request.activeBranchName ?? deployment.defaultBranch
    if (!deployment.branches.includes(branch))
      return fixedLines(errorLine(`Branch ${branch} not found in deployment ${deployment.id}`))
    const devMode = branch !== deployment.defaultBranch
    const join = (active: Parameters<typeof joinedRun>[2]) => joinedRun(request, participant, active, devMode)
    // A thread the request reaches by its messageId is read under the same policies as one it names, before it is.
    const readable = async (threadId: string) => {
      if (threadId !== request.chatId) await options.mayRead?.(participant, threadId)
    }
    // The answer of a message found stored: its run if it is still running, else the thread's state. The registry
    // is asked after the store: a run another node registered and stored in between (two requests for one new
    // message, on two nodes at once) is joined, not taken for finished.
    const answerOf = async (threadId: string) => {
      await readable(threadId)
      return join(await registry.forChat(threadId)) ?? stateOf(threadId, devMode)
    }
    const start = (chatId: string | undefined, input: string) =>
      startRun({ request: { ...request, input }, participant, chatId, branch, devMode })

    // A new message without a thread is not looked up in a shared registry first (a round trip to Redis on every
    // turn): one running elsewhere is found all the same, stored (by its thread, below) or not yet (its claim is
    // refused, and `startRun` joins it).
    const lookUpFirst = request.chatId !== undefined || !(registry.shared && request.input !== undefined)
    if (request.messageId !== undefined && lookUpFirst) {
      const active =
        request.chatId !== undefined
          ? running
          : await registry.forMessage(userId, participant.agent.id, request.messageId)
      const joined = join(active)
      if (joined) return readable(active!.key.chatId).then(() => joined)
    }

    if (request.chatId !== undefined) {
      const thread = await store.thread(request.chatId)
      if (!thread || thread.userId !== userId || thread.agentId !== participant.agent.id)
        return fixedLines(errorLine(`Chat ${request.chatId} not found`))
      if (request.messageId !== undefined) {
        // A client's messageId is its idempotency key for all of the user's threads: a message stored in this thread
        // or another is never run again. In another thread its run may still be going, and is joined.
        const stored = await store.threadOfUserMessage(userId, participant.agent.id, request.messageId)
        if (stored !== undefined) {
          if (stored !== thread.id) {
            const joined = join(await registry.forMessage(userId, participant.agent.id, request.messageId))
            if (joined) return readable(stored).then(() => joined)
          }
          return answerOf(stored)
        }
      }
      if (request.input === undefined) return stateOf(thread.id, devMode)
      if (running) return fixedLines(errorLine(BUSY))
      return start(thread.id, request.input)
    }

    // A finished messageId is answered from its thread, found by a read, or by the turn's start where that checks it.
    const startChecks = request.input !== undefined && store.startChecksMessage
    if (request.messageId !== undefined && !startChecks) {
      const finished = await store.threadOfUserMessage(userId, participant.agent.id, request.messageId)
      if (finished) return answerOf(finished)
    }
    // No input and no thread (nor a run or answer of its messageId): the request body is optional, and a request
    // without one asks for a new thread, created now so the chatId its __cutoff__ gives can be sent input or read.
    if (request.input === undefined) {
      await options.mayCreate?.(participant)
      const chatId = Bun.randomUUIDv7()
      await store.createThread({
        id: chatId,
        accountId: deployment.accountId,
        deploymentId: deployment.id,
        agentId: participant.agent.id,
        userId,
      })
      return fixedLines(cutoffLine(chatId, false), stateLine([]))
    }
    try {
      return await start(undefined, request.input)
    } catch (error) {
      if (error instanceof MessageStored) return answerOf(error.threadId)
      throw error
    }
  }
}
