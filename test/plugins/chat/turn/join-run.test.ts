import { describe, expect, it } from 'bun:test'
import type { AgentInfo, DeploymentInfo } from '../../../../plugins/auth/directory'
import { Run } from '../../../../plugins/chat/registry/run'
import { withoutThinking } from '../../../../plugins/chat/stream/lines'
import { joinedRun } from '../../../../plugins/chat/turn/join-run'
import type { ChatParticipant } from '../../../../plugins/chat/turn/participant'

const key = { chatId: 'thread-1', messageId: '1795939298871-message', userId: 7, agentId: 1, threadId: 'thread-1' }
const participant = (userId: number, agentId = 1) =>
  ({
    agent: { id: agentId } as AgentInfo,
    deployment: {} as DeploymentInfo,
    userId,
    access: { userId, groups: [], userAttributes: {}, securityContext: {} },
  }) satisfies ChatParticipant

describe('joinedRun', () => {
  it("joins the run of the request's messageId, of the same user and agent, with a streaming __cutoff__", () => {
    const run = new Run(key)
    const joined = joinedRun({ messageId: key.messageId }, participant(7), run, true)
    expect(joined?.run).toBe(run)
    expect(joined?.head.map((line) => JSON.parse(line.json))).toEqual([
      { id: '__cutoff__', sort: 0, state: { chatId: 'thread-1', isStreaming: true } },
    ])
    expect(joined?.view).toBeUndefined()
  })

  it("does not join another user's or another agent's run, nor one of another messageId", () => {
    const run = new Run(key)
    expect(joinedRun({ messageId: key.messageId }, participant(8), run, true)).toBeUndefined()
    expect(joinedRun({ messageId: key.messageId }, participant(7, 2), run, true)).toBeUndefined()
    expect(joinedRun({ messageId: '1795939298872-message' }, participant(7), run, true)).toBeUndefined()
    expect(joinedRun({}, participant(7), run, true)).toBeUndefined()
    expect(joinedRun({ messageId: key.messageId }, participant(7), undefined, true)).toBeUndefined()
  })

  it('reads the run without thinking outside development mode', () => {
    expect(joinedRun({ messageId: key.messageId }, participant(7), new Run(key), false)?.view).toBe(withoutThinking)
  })
})
