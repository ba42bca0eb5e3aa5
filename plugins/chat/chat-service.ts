import { asStorageUnavailable } from '../../db/storage-errors'
import type { Logger } from '../../lib/logger'
import type { Metrics } from '../../lib/metrics'
import { BadRequestError, ForbiddenError, NotFoundError, ShuttingDownError } from '../../lib/errors'
import type { AgentInfo, DeploymentInfo } from '../auth/directory'
import type { UserAccess } from '../auth/user-access'
import type { AgentFactory } from './agent'
import { cutoffLine, encodeLine, errorLine, stateLine, withoutThinking } from './lines'
import { isInlineImage } from './images'
import type { ChatRequest } from './model'
import { OpenMessages } from './open-message'
import { executeRun, type RunServices } from './run-executor'
import type { TurnSource } from './run-readers'
import { createLoopBudget } from './loop-budget'
import { RunLimitReached, type Run, type RunRegistry, type RunStart } from './run-registry'
import type { RunAdmission, RunTicket } from './run-admission'
import type { RunDeadlines } from './run-deadlines'
import { MessageStored, type RunOutcome, type ThreadStore } from './thread-store'

/** The error line of a run cut short by a shutdown. */
const SHUTDOWN_MESSAGE = 'The server is shutting down; the run was interrupted'

/** Who is chatting, resolved by the route from the credential. */
export interface ChatParticipant {
  agent: AgentInfo
  deployment: DeploymentInfo
  userId: number
  access: UserAccess
  /** The API key that asked, counted by its concurrent-run limit (tokens have none). */
  keyId?: number
}

/** What a caller may abort: threads of its account and agent, in its deployments, of `userId` (null: any user). */
export interface AbortScope {
  accountId: number
  agentId: number
  deploymentIds: number[] | null
  userId: number | null
}

export interface ChatServiceOptions {
  store: ThreadStore
  /** Where active runs are found: this process's memory, or Redis shared with other nodes. */
  registry: RunRegistry
  agents: AgentFactory
  logger: Logger
  metrics: Metrics
  clock: () => number
  /** How long runs may hold the event loop before they let it serve other requests (see `createLoopBudget`). */
  loopBudgetMs?: number
  /** Per-user, per-key and server-wide run limits; none means every run executes at once. */
  admission?: RunAdmission
  /** First-token and whole-turn time limits of executing runs. */
  deadlines?: RunDeadlines
  /** Settles once the store is ready for new runs (see `recoverInterruptedRuns`); requests wait for it. */
  ready?: Promise<unknown>
  /**
   * Throws when `participant` may not read thread `threadId` (the deployment's thread policies). Asked for a thread
   * a request reaches by its `messageId` rather than names: the route checked the `chatId` it named itself.
   */
  mayRead?: (participant: ChatParticipant, threadId: string) => Promise<void>
}

const BUSY = 'Streaming for thread is in progress'
/** How long an abort waits for its run to let the thread go before it answers anyway. */
const ABORT_SETTLE_MS = 5_000
/** How often it looks (each look of a run on another node asks Redis). */
const ABORT_POLL_MS = 10

/** 400 for a request with nothing to do: no input, no thread to read, no run or answer of its `messageId`. */
export function emptyChatRequest(): BadRequestError {
  return new BadRequestError('Send input to start a chat, or chatId to read one', 'EMPTY_CHAT_REQUEST')
}

/**
 * 400 for an image that is not given inline: `data` is the image itself, base64 or a `data:` URL. The server never
 * fetches a caller's URL: it would reach whatever the server can reach, inside the company's network too.
 */
export function assertInlineImages(images: ChatRequest['images']): void {
  images?.forEach((image, index) => {
    const link = /^[a-z][a-z0-9+.-]*:/i.test(image.data) && !/^data:/i.test(image.data)
    if (link || !isInlineImage(image.data))
      throw new BadRequestError(
        link
          ? `images[${index}].data: send the image itself (base64 or a data: URL), not a link to it`
          : `images[${index}].data: expected the image in base64 or as a data: URL`,
        'INVALID_IMAGE',
      )
  })
}

/**
 * The chat's turn logic: starts runs, joins active ones by `messageId`, answers finished
 * `messageId`s and state requests from the database, and aborts runs. It returns what to send (`TurnSource`); the
 * HTTP and WebSocket routes only deliver it.
 */
export function createChatService(options: ChatServiceOptions) {
  const { store, agents, logger, metrics, clock, registry } = options
  const runsTotal = metrics.counter('chat_runs_total', 'Chat runs by outcome', ['outcome'])
  // Executing only: a run waiting for its admission place is counted by chat_admission_queued.
  metrics.gauge('chat_active_runs', 'Chat runs of this node executing now (not those queued for admission)', {
    collect: () => Math.max(0, registry.size - (options.admission?.waiting ?? 0)),
  })
  const messages = new OpenMessages(store, clock, logger)
  const services: RunServices = {
    store,
    messages,
    registry,
    logger,
    budget: createLoopBudget(options.loopBudgetMs ?? 4),
    clock,
    onEnd: (outcome) => runsTotal.inc({ outcome }),
  }

  const fixed = (...lines: Parameters<typeof encodeLine>[0][]): TurnSource => ({ head: lines.map(encodeLine) })
  // A running turn's lines went out once saved: the thread as stored holds everything its clients were sent.
  const stateOf = async (chatId: string, devMode: boolean): Promise<TurnSource> =>
    fixed(cutoffLine(chatId, false), stateLine(await store.messages(chatId, devMode)))

  /**
   * The run `active` when this request rejoins it (same messageId, same user and agent), with its `__cutoff__`. A
   * request outside development mode reads the run without `thinking`, whatever branch started it.
   */
  function joining(
    request: ChatRequest,
    participant: ChatParticipant,
    active: Run | undefined,
    devMode: boolean,
  ): TurnSource | undefined {
    if (
      active &&
      request.messageId !== undefined &&
      active.key.messageId === request.messageId &&
      active.key.userId === participant.userId &&
      active.key.agentId === participant.agent.id
    )
      return {
        head: [encodeLine(cutoffLine(active.key.chatId, true))],
        run: active,
        ...(devMode ? {} : { view: withoutThinking }),
      }
    return undefined
  }

  /**
   * The run of a message found stored, if it is still running. The registry was asked before the store: a run
   * another node registered and stored in between (two requests for one new message, on two nodes at once) was
   * taken for finished, and the request got the thread's state while its answer went on.
   */
  async function joinStored(
    request: ChatRequest,
    participant: ChatParticipant,
    threadId: string,
    devMode: boolean,
  ): Promise<TurnSource | undefined> {
    return joining(request, participant, await registry.forChat(threadId), devMode)
  }

  // Requests wait for the start-up work (the recovery of runs a previous process left running) only while it lasts.
  let recovering = options.ready !== undefined
  let draining = false
  const recovery = options.ready?.finally(() => (recovering = false))

  // Reads and the registry are awaited, so two requests for the same message (a client's retry, a double click) could
  // both find no run and start two. In this process they take turns instead: the second finds the first one's run.
  const opening = new Map<string, Promise<void>>()
  async function inTurn<T>(key: string | undefined, work: () => Promise<T>): Promise<T> {
    if (key === undefined) return work()
    const current = (opening.get(key) ?? Promise.resolve()).then(work)
    const settled = current.then(
      () => {},
      () => {},
    )
    opening.set(key, settled)
    try {
      return await current
    } finally {
      if (opening.get(key) === settled) opening.delete(key)
    }
  }

  // A message id the server makes is the millisecond of the turn, as a client's would be; two turns in one millisecond
  // take the next free one, so a user's messages never share an id in this process (a rejoin by it finds one run).
  let lastMessageMs = 0
  function serverMessageId(): string {
    lastMessageMs = Math.max(clock(), lastMessageMs + 1)
    return `${lastMessageMs}-message`
  }

  async function startRun(
    request: ChatRequest & { input: string },
    participant: ChatParticipant,
    chatId: string | undefined,
    branch: string,
    devMode: boolean,
  ): Promise<TurnSource> {
    // A lone surrogate cannot be stored (UTF-8 has none): it becomes U+FFFD here, so the echo is what is stored.
    if (!request.input.isWellFormed()) request = { ...request, input: request.input.toWellFormed() }
    const isNewThread = chatId === undefined
    // Time-ordered ids: new threads and runs are appended at the end of their indexes instead of at random places,
    // so a turn's writes touch the same few hot pages as the turn before.
    const threadId = chatId ?? Bun.randomUUIDv7()
    const messageId = request.messageId ?? serverMessageId()
    const runId = Bun.randomUUIDv7()
    // Over a limit: 429 before anything is stored or streamed. A registry shared between nodes checks the limits
    // again for the runs of every node, as it claims the thread.
    const { admission } = options
    let ticket: RunTicket | undefined
    try {
      ticket = admission?.admit({ userId: participant.userId, keyId: participant.keyId })
    } catch (error) {
      // The same message running elsewhere (a new message is not looked up before, see `openNow`) is joined, over
      // the limits or not: joining counts against none.
      const active =
        isNewThread && request.messageId !== undefined
          ? await registry.forMessage(participant.userId, participant.agent.id, messageId)
          : undefined
      const joined = joining(request, participant, active, devMode)
      if (!joined) throw error
      await options.mayRead?.(participant, active!.key.chatId)
      return joined
    }
    const limits: RunStart['limits'] =
      admission && registry.shared
        ? {
            keyId: participant.keyId,
            maxRunsPerUser: admission.limits.maxRunsPerUser,
            maxRunsPerKey: admission.limits.maxRunsPerKey,
          }
        : undefined
    // The run is registered at once (a second request for the thread is busy, a rejoin finds it) and starts once
    // its user message is committed; readers attached meanwhile simply wait for its first line. Registering claims
    // the thread: another request (on any node) that got there first makes this one busy, or joins its run when it
    // is the same message.
    let run: Run | undefined
    try {
      run = await registry.start({
        chatId: threadId,
        messageId,
        userId: participant.userId,
        agentId: participant.agent.id,
        threadId,
        runId,
        clientMessageId: request.messageId !== undefined,
        limits,
      })
    } catch (error) {
      if (error instanceof RunLimitReached && admission) throw admission.overLimit(error.limit)
      throw error
    } finally {
      if (!run) ticket?.release()
    }
    if (!run) {
      // Taken: by a run on this thread, or by the same message running in another thread of the user's (started a
      // moment ago on another node for a new thread, or named again with another chatId). The same message joins
      // that run; anything else is busy.
      const active =
        (await registry.forChat(threadId)) ??
        (isNewThread || request.messageId !== undefined
          ? await registry.forMessage(participant.userId, participant.agent.id, messageId)
          : undefined)
      const joined = joining(request, participant, active, devMode)
      // Joined in a thread the request did not name: read under the same policies as a named one.
      if (joined && active!.key.chatId !== chatId) await options.mayRead?.(participant, active!.key.chatId)
      // Its run ended (or the lookup missed it) since the claim was refused: a new thread's message whose start would
      // have checked it is answered from the thread that holds it, as that check would have.
      if (!joined && isNewThread && request.messageId !== undefined && store.startChecksMessage) {
        const stored = await store.threadOfUserMessage(participant.userId, participant.agent.id, messageId)
        if (stored !== undefined) throw new MessageStored(stored)
      }
      return joined ?? fixed(errorLine(BUSY))
    }
    // A new thread's turn with a client's messageId whose start checks it (see `ThreadStore.startChecksMessage`).
    const checkMessage = isNewThread && request.messageId !== undefined && store.startChecksMessage
    // The history is read in the turn's own transaction: exactly the messages before this turn's.
    const started = store.startTurn({
      thread: {
        id: threadId,
        accountId: participant.deployment.accountId,
        deploymentId: participant.deployment.id,
        agentId: participant.agent.id,
        userId: participant.userId,
      },
      isNewThread,
      runId,
      messageId,
      branch,
      input: request.input,
      images: request.images,
      devMode,
      checkMessage,
    })
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
    void runTurn(run, ticket, started, { request, participant, branch, devMode, runId })
    // The `__cutoff__` goes out at once; a request naming this thread before its start is committed commits it
    // first (see `open` and `abort`), so the chatId a client learns is always one its next request finds.
    return { head: [encodeLine(cutoffLine(threadId, false))], run }
  }

  /**
   * The stored turn, once its run may execute: a queued run's readers wait after `__cutoff__` until its place
   * comes (the user message is committed meanwhile). From then on the run is under the time limits; aborted while
   * queued, it ends at once as aborted. The place is given back when the run's chain settles (below).
   */
  async function admitted<T>(run: Run, ticket: RunTicket | undefined, stored: Promise<T>): Promise<T> {
    const turn = await stored
    if (ticket) await ticket.wait(run.signal)
    options.deadlines?.watch(run)
    return turn
  }

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

  /** What the client of a run that crashed is told (never the error itself: it is logged). */
  const CRASHED = 'The agent failed to answer; please try again'

  /**
   * A started turn from its stored user message to its end. One async function rather than a chain of callbacks:
   * ten thousand held runs each keep one suspended frame, not four closures and their promises.
   */
  async function runTurn(
    run: Run,
    ticket: RunTicket | undefined,
    started: ReturnType<ThreadStore['startTurn']>,
    turn: {
      request: ChatRequest & { input: string }
      participant: ChatParticipant
      branch: string
      devMode: boolean
      runId: string
    },
  ): Promise<void> {
    const { request, participant, runId } = turn
    /** The lease epoch the turn's start got, once it is stored. */
    let epoch: number | undefined
    try {
      let stored: Awaited<typeof started>
      try {
        stored = await admitted(run, ticket, started)
      } catch (error) {
        const down = asStorageUnavailable(error)
        if (down) logger.warn('chat turn could not be stored', { runId, reason: down.reason })
        else logger.error('chat turn could not be stored', { runId, error })
        run.append(encodeLine(errorLine('The message could not be stored; please try again')))
        registry.end(run)
        runsTotal.inc({ outcome: 'failed' })
        return
      }
      const { history, userMessage, nextSort } = stored
      epoch = stored.epoch
      run.append(encodeLine(userMessage))
      await executeRun(services, {
        run,
        runId,
        agent: agents(participant.agent),
        turn: {
          agent: participant.agent,
          deployment: participant.deployment,
          branch: turn.branch,
          devMode: turn.devMode,
          history,
          input: request.input,
          images: request.images ?? [],
          access: participant.access,
        },
        firstSort: nextSort,
        userMessage,
        epoch,
      })
    } catch (error) {
      // A bug, or an agent that could not even be built (its module failed to load): the run still ends, with an
      // error line and its thread free, instead of leaving its readers waiting and the thread busy until a restart.
      logger.error('chat run crashed', { runId, error })
      // A fenced run writes nothing more, its end included (its thread is another node's now).
      if (!run.done && epoch !== undefined && run.fenced === undefined) {
        await store.endRun(runId, epoch, 'failed', CRASHED).catch((failure: unknown) => {
          const down = asStorageUnavailable(failure)
          if (down) logger.warn('chat run end could not be stored', { runId, reason: down.reason })
          else logger.error('chat run end could not be stored', { runId, error: failure })
        })
      }
      if (!run.done) {
        run.append(encodeLine(errorLine(run.fenced ?? CRASHED)))
        registry.end(run)
        runsTotal.inc({ outcome: 'failed' })
      }
    } finally {
      ticket?.release()
    }
  }

  async function openNow(request: ChatRequest, participant: ChatParticipant): Promise<TurnSource> {
    const { deployment, userId } = participant
    const running = request.chatId !== undefined ? await registry.forChat(request.chatId) : undefined
    if (running) await store.flushWrites()
    const branch = request.activeBranchName ?? deployment.defaultBranch
    if (!deployment.branches.includes(branch))
      return fixed(errorLine(`Branch ${branch} not found in deployment ${deployment.id}`))
    const devMode = branch !== deployment.defaultBranch
    // A thread the request reaches by its messageId is read under the same policies as one it names, before it is.
    const readable = async (threadId: string) => {
      if (threadId !== request.chatId) await options.mayRead?.(participant, threadId)
    }
    const answerOf = async (threadId: string) => {
      await readable(threadId)
      return (await joinStored(request, participant, threadId, devMode)) ?? stateOf(threadId, devMode)
    }

    // A new message without a thread is not looked up in a shared registry first (a round trip to Redis on every
    // turn): one running elsewhere is found all the same, stored (by its thread, below) or not yet (its claim is
    // refused, and `startRun` joins it).
    const lookUpFirst = request.chatId !== undefined || !(registry.shared && request.input !== undefined)
    if (request.messageId !== undefined && lookUpFirst) {
      const active =
        request.chatId !== undefined
          ? running
          : await registry.forMessage(userId, participant.agent.id, request.messageId)
      const joined = joining(request, participant, active, devMode)
      if (joined) return readable(active!.key.chatId).then(() => joined)
    }

    if (request.chatId !== undefined) {
      const thread = await store.thread(request.chatId)
      if (!thread || thread.userId !== userId || thread.agentId !== participant.agent.id)
        return fixed(errorLine(`Chat ${request.chatId} not found`))
      if (request.messageId !== undefined) {
        // A client's messageId is its idempotency key for all of the user's threads: a message stored in this thread
        // or another is never run again. In another thread its run may still be going, and is joined.
        const stored = await store.threadOfUserMessage(userId, participant.agent.id, request.messageId)
        if (stored !== undefined) {
          if (stored !== thread.id) {
            const joined = joining(
              request,
              participant,
              await registry.forMessage(userId, participant.agent.id, request.messageId),
              devMode,
            )
            if (joined) return readable(stored).then(() => joined)
          }
          return answerOf(stored)
        }
      }
      if (request.input === undefined) return stateOf(thread.id, devMode)
      if (running) return fixed(errorLine(BUSY))
      return startRun({ ...request, input: request.input }, participant, thread.id, branch, devMode)
    }

    // A finished messageId is answered from its thread, found by a read, or by the turn's start where that checks it.
    const startChecks = request.input !== undefined && store.startChecksMessage
    if (request.messageId !== undefined && !startChecks) {
      const finished = await store.threadOfUserMessage(userId, participant.agent.id, request.messageId)
      if (finished) return answerOf(finished)
    }
    // A messageId with no run and no answer, and nothing else: the request has nothing to do.
    if (request.input === undefined) throw emptyChatRequest()
    try {
      return await startRun({ ...request, input: request.input }, participant, undefined, branch, devMode)
    } catch (error) {
      if (error instanceof MessageStored) return answerOf(error.threadId)
      throw error
    }
  }

  /**
   * The start of a shutdown: new turns are refused (503), and every run of this process ends now as interrupted,
   * so the responses reading them end and the server can stop.
   */
  function drain(): void {
    draining = true
    registry.abortAll(SHUTDOWN_MESSAGE)
  }

  return {
    registry,

    /** What to send for one chat request. Never throws for thread-level problems: they become an error line. */
    async open(request: ChatRequest, participant: ChatParticipant): Promise<TurnSource> {
      if (draining) throw new ShuttingDownError()
      assertInlineImages(request.images)
      if (recovering) await recovery
      const sameMessage =
        request.input !== undefined && request.messageId !== undefined
          ? `${participant.userId}:${participant.agent.id}:${request.messageId}`
          : undefined
      return inTurn(sameMessage, () => openNow(request, participant))
    },

    /**
     * Stops the thread's active run (the run ends with an error line and keeps its partial answer). `userId` null
     * means an account-level caller (an API key naming no user). Resolves with whether a run was stopped.
     */
    async abort(chatId: string, scope: AbortScope): Promise<boolean> {
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
    },

    drain,

    /** Aborts every run (one started meanwhile too) and waits (bounded) for them to save their partial answers. */
    async shutdown(timeoutMs: number): Promise<void> {
      drain()
      await registry.whenIdle(timeoutMs)
      await store.flushWrites()
      messages.close()
    },
  }
}

export type ChatService = ReturnType<typeof createChatService>
