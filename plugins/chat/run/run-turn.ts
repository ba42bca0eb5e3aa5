import { asStorageUnavailable } from '../../../db/storage-errors'
import type { ChatRequest } from '../model'
import type { RunTicket } from '../registry/run-admission'
import type { RunDeadlines } from '../registry/run-deadlines'
import type { Run } from '../registry/run'
import { encodeLine, errorLine } from '../stream/lines'
import type { ThreadStore } from '../../../db/repositories/threads'
import type { ChatParticipant } from '../turn/participant'
import type { AgentFactory } from './agent'
import { executeRun, type RunServices } from './run-executor'

/** What the client of a run that crashed is told (never the error itself: it is logged). */
const CRASHED = 'The agent failed to answer; please try again'

/** What a started turn needs besides its run: the services runs share, the agents, the time limits. */
export interface TurnServices extends RunServices {
  agents: AgentFactory
  deadlines?: RunDeadlines
}

/** One turn that was registered and whose start is being stored. */
export interface StartedTurn {
  request: ChatRequest & { input: string }
  participant: ChatParticipant
  branch: string
  devMode: boolean
  runId: string
  /** The store's `startTurn` under way: the history, the stored user message and the lease epoch it got. */
  started: ReturnType<ThreadStore['startTurn']>
  /** The run's admission place, given back when the turn ends whatever happens (none without admission limits). */
  ticket: RunTicket | undefined
}

/**
 * A started turn from its stored user message to its end. One async function rather than a chain of callbacks:
 * ten thousand held runs each keep one suspended frame, not four closures and their promises. It never throws: a
 * turn that could not be stored, or crashed, ends with an error line and its thread free, so its readers do not
 * wait and the thread is not busy until a restart.
 */
export async function runTurn(services: TurnServices, run: Run, turn: StartedTurn): Promise<void> {
  const { request, participant, runId, ticket } = turn
  const { logger, registry } = services
  /** The lease epoch the turn's start got, once it is stored. */
  let epoch: number | undefined
  try {
    let stored: Awaited<StartedTurn['started']>
    try {
      stored = await admitted(services, run, turn)
    } catch (error) {
      const down = asStorageUnavailable(error)
      if (down) logger.warn('chat turn could not be stored', { runId, reason: down.reason })
      else logger.error('chat turn could not be stored', { runId, error })
      run.append(encodeLine(errorLine('The message could not be stored; please try again')))
      registry.end(run)
      services.onEnd('failed')
      return
    }
    const { history, userMessage, nextSort } = stored
    epoch = stored.epoch
    run.append(encodeLine(userMessage))
    await executeRun(services, {
      run,
      runId,
      agent: services.agents(participant.agent),
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
    // A bug, or an agent that could not even be built (its module failed to load).
    logger.error('chat run crashed', { runId, error })
    await endCrashed(services, run, runId, epoch)
  } finally {
    ticket?.release()
  }
}

/**
 * The stored turn, once its run may execute: a queued run's readers wait after `__cutoff__` until its place
 * comes (the user message is committed meanwhile). From then on the run is under the time limits; aborted while
 * queued, it ends at once as aborted. The place is given back when the turn ends (`runTurn`).
 */
async function admitted(services: TurnServices, run: Run, turn: StartedTurn): Promise<Awaited<StartedTurn['started']>> {
  const stored = await turn.started
  if (turn.ticket) await turn.ticket.wait(run.signal)
  services.deadlines?.watch(run)
  return stored
}

/**
 * Ends a crashed run as failed: in storage once its start was stored (a fenced run writes nothing more, its end
 * included: its thread is another node's now), then for its readers, with its thread freed.
 */
async function endCrashed(services: TurnServices, run: Run, runId: string, epoch: number | undefined): Promise<void> {
  const { logger, store } = services
  if (!run.done && epoch !== undefined && run.fenced === undefined) {
    await store.endRun(runId, epoch, 'failed', CRASHED).catch((failure: unknown) => {
      const down = asStorageUnavailable(failure)
      if (down) logger.warn('chat run end could not be stored', { runId, reason: down.reason })
      else logger.error('chat run end could not be stored', { runId, error: failure })
    })
  }
  if (!run.done) {
    run.append(encodeLine(errorLine(run.fenced ?? CRASHED)))
    services.registry.end(run)
    services.onEnd('failed')
  }
}
