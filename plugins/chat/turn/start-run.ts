import { MessageStored, type ThreadStore } from '../../../db/repositories/threads'
import type { ChatRequest } from '../model'
import { RunLimitReached, type RunStart } from '../registry/run-registry'
import { type Run } from '../registry/run'
import type { RunTicket } from '../registry/run-admission'
import { runTurn, type TurnServices } from '../run/run-turn'
import { cutoffLine, encodeLine, errorLine } from '../stream/lines'
import type { TurnSource } from '../stream/run-readers'
import { joinedRun } from './join-run'
import type { ChatParticipant } from './participant'
import { BUSY, fixedLines, type ChatServiceOptions } from './turn-context'

/** A turn to start: its input, in thread `chatId` (undefined: a new thread), on `branch`. */
export interface TurnToStart {
  request: ChatRequest & { input: string }
  participant: ChatParticipant
  chatId: string | undefined
  branch: string
  devMode: boolean
}

/**
 * Stores the turn's start: the thread (when new), the run and the user message, committed together, with the
 * thread's history as it stood before (exactly the messages before this turn's).
 */
function storeStart(
  store: ThreadStore,
  turn: TurnToStart,
  ids: { threadId: string; messageId: string; runId: string },
  checkMessage: boolean,
): ReturnType<ThreadStore['startTurn']> {
  const { participant, request } = turn
  return store.startTurn({
    thread: {
      id: ids.threadId,
      accountId: participant.deployment.accountId,
      deploymentId: participant.deployment.id,
      agentId: participant.agent.id,
      userId: participant.userId,
    },
    isNewThread: turn.chatId === undefined,
    runId: ids.runId,
    messageId: ids.messageId,
    branch: turn.branch,
    input: request.input,
    images: request.images,
    devMode: turn.devMode,
    checkMessage,
  })
}

/**
 * Starts runs: admits the turn under the run limits (429 over one), claims its thread in the registry (on every
 * node), stores its user message and executes it in the background. A claim another request got first is joined
 * when it is the same message, and busy otherwise. Returns what the request gets: the `__cutoff__` and the run.
 */
export function createRunStarter(options: ChatServiceOptions, services: TurnServices) {
  const { registry, store, admission } = options

  // A message id the server makes is the millisecond of the turn, as a client's would be; two turns in one millisecond
  // take the next free one, so a user's messages never share an id in this process (a rejoin by it finds one run).
  let lastMessageMs = 0
  function serverMessageId(): string {
    lastMessageMs = Math.max(options.clock(), lastMessageMs + 1)
    return `${lastMessageMs}-message`
  }

  /**
   * Over a limit: the same message running elsewhere (a new message is not looked up before, see `openTurn`) is
   * joined, over the limits or not, since joining counts against none; anything else gets the admission's 429.
   */
  async function joinOverLimit(turn: TurnToStart, messageId: string, refusal: unknown): Promise<TurnSource> {
    const { request, participant } = turn
    const active =
      turn.chatId === undefined && request.messageId !== undefined
        ? await registry.forMessage(participant.userId, participant.agent.id, messageId)
        : undefined
    const joined = joinedRun(request, participant, active, turn.devMode)
    if (!joined) throw refusal
    await options.mayRead?.(participant, active!.key.chatId)
    return joined
  }

  /**
   * Registers the run at once (a second request for the thread is busy, a rejoin finds it); it starts once its user
   * message is committed, and readers attached meanwhile simply wait for its first line. Registering claims the
   * thread: undefined when another request (on any node) got there first. A registry shared between nodes checks
   * the run limits again for the runs of every node, as it claims the thread.
   */
  async function register(
    turn: TurnToStart,
    ids: { threadId: string; messageId: string; runId: string },
    ticket: RunTicket | undefined,
  ): Promise<Run | undefined> {
    const { participant } = turn
    const limits: RunStart['limits'] =
      admission && registry.shared
        ? {
            keyId: participant.keyId,
            maxRunsPerUser: admission.limits.maxRunsPerUser,
            maxRunsPerKey: admission.limits.maxRunsPerKey,
          }
        : undefined
    let run: Run | undefined
    try {
      run = await registry.start({
        chatId: ids.threadId,
        messageId: ids.messageId,
        userId: participant.userId,
        agentId: participant.agent.id,
        threadId: ids.threadId,
        runId: ids.runId,
        clientMessageId: turn.request.messageId !== undefined,
        limits,
      })
    } catch (error) {
      if (error instanceof RunLimitReached && admission) throw admission.overLimit(error.limit)
      throw error
    } finally {
      if (!run) ticket?.release()
    }
    return run
  }

  /**
   * The thread was taken: by a run on this thread, or by the same message running in another thread of the user's
   * (started a moment ago on another node for a new thread, or named again with another chatId). The same message
   * joins that run; anything else is busy.
   */
  async function joinTaken(turn: TurnToStart, threadId: string, messageId: string): Promise<TurnSource> {
    const { request, participant, chatId } = turn
    const active =
      (await registry.forChat(threadId)) ??
      (chatId === undefined || request.messageId !== undefined
        ? await registry.forMessage(participant.userId, participant.agent.id, messageId)
        : undefined)
    const joined = joinedRun(request, participant, active, turn.devMode)
    // Joined in a thread the request did not name: read under the same policies as a named one.
    if (joined && active!.key.chatId !== chatId) await options.mayRead?.(participant, active!.key.chatId)
    // Its run ended (or the lookup missed it) since the claim was refused: a new thread's message whose start would
    // have checked it is answered from the thread that holds it, as that check would have.
    if (!joined && chatId === undefined && request.messageId !== undefined && store.startChecksMessage) {
      const stored = await store.threadOfUserMessage(participant.userId, participant.agent.id, messageId)
      if (stored !== undefined) throw new MessageStored(stored)
    }
    return joined ?? fixedLines(errorLine(BUSY))
  }

  return async function startRun(turn: TurnToStart): Promise<TurnSource> {
    // A lone surrogate cannot be stored (UTF-8 has none): it becomes U+FFFD here, so the echo is what is stored.
    const request = turn.request.input.isWellFormed()
      ? turn.request
      : { ...turn.request, input: turn.request.input.toWellFormed() }
    turn = { ...turn, request }
    const { participant, chatId } = turn
    // Time-ordered ids: new threads and runs are appended at the end of their indexes instead of at random places,
    // so a turn's writes touch the same few hot pages as the turn before.
    const threadId = chatId ?? Bun.randomUUIDv7()
    const messageId = request.messageId ?? serverMessageId()
    const runId = Bun.randomUUIDv7()
    // Over a limit: 429 before anything is stored or streamed.
    let ticket: RunTicket | undefined
    try {
      ticket = admission?.admit({ userId: participant.userId, keyId: participant.keyId })
    } catch (error) {
      return joinOverLimit(turn, messageId, error)
    }
    const run = await register(turn, { threadId, messageId, runId }, ticket)
    if (!run) return joinTaken(turn, threadId, messageId)
    // A new thread's turn with a client's messageId whose start checks it (see `ThreadStore.startChecksMessage`).
    const checkMessage = chatId === undefined && request.messageId !== undefined && store.startChecksMessage
    const started = storeStart(store, turn, { threadId, messageId, runId }, checkMessage)
    if (checkMessage) {
      // The start answers whether the user has the message already: the `__cutoff__` waits for it, so it names the
      // thread that holds the message (whose state is the answer) rather than a new one. Other failures are the run's.
      const stored = await started.then(
        () => undefined,
        (error: unknown) => (error instanceof MessageStored ? error : undefined),
      )
      if (stored) {
        registry.end(run)
        ticket?.release()
        throw stored
      }
    }
    void runTurn(services, run, { ...turn, request, runId, started, ticket })
    // The `__cutoff__` goes out at once; a request naming this thread before its start is committed commits it
    // first (`openTurn` and `abort` flush the writes of a thread with a run), so the chatId a client learns is
    // always one its next request finds.
    return { head: [encodeLine(cutoffLine(threadId, false))], run }
  }
}
