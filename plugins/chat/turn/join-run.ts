import type { Run } from '../registry/run'
import type { ChatRequest } from '../model'
import { cutoffLine, encodeLine, withoutThinking } from '../stream/lines'
import type { TurnSource } from '../stream/run-readers'
import type { ChatParticipant } from './participant'

/**
 * The run `active` when this request rejoins it (same messageId, same user and agent), with its `__cutoff__`; else
 * undefined. A request outside development mode reads the run without `thinking`, whatever branch started it.
 */
export function joinedRun(
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
