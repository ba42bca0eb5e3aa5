import { afterEach, beforeEach, describe, expect, it } from 'bun:test'
import { eq } from 'drizzle-orm'
import type { Storage } from '../../../../db/client'
import { createLogger } from '../../../../lib/logger'
import { randomToken } from '../../../../lib/secrets'
import { createScriptedAgent } from '../../../../plugins/chat/run/scripted-agent'
import { POLICIES_MAX_AGE_MS } from '../../../../plugins/chat/thread-policies'
import { apiKey, createTestApp, testAppStorage, testClock, type TestApp, redisNode } from '../../../helpers/app'
import { chatBase } from '../../../helpers/chat'
import { warnSkipped } from '../../../helpers/database-servers'
import { keys } from '../../../helpers/fixtures'
import { redisAvailable, redisServer } from '../../../helpers/redis-server'

/** Two nodes in one process over one database and one Redis, each with its own registry (as in shared-runs). */
let storage: Storage
let nodeA: TestApp
let nodeB: TestApp
const clock = testClock()

const admin = apiKey(keys.admin)
const denyCreate = [{ actions: ['ChatThreadCreate'], effect: 'deny', resourceType: 'agent', resources: ['1'] }]
const chat = (node: TestApp) =>
  node.request('POST', `${chatBase()}/stream-chat-state`, {
    headers: admin,
    body: { input: 'Hello', sessionSettings: { externalId: 'policy-user' } },
  })
const setPolicies = async (node: TestApp, chatThreadPolicies: unknown[]) => {
  const response = await node.request('PATCH', '/api/v1/deployments/1/ai-engineer-settings', {
    headers: admin,
    body: { chatThreadPolicies },
  })
  expect(response.status).toBe(200)
}
/** The status of `node`'s next chat turns, until it is `status` or a second has gone by. */
async function statusWithin(node: TestApp, status: number): Promise<number> {
  const deadline = Date.now() + 1_000
  for (;;) {
    const response = await chat(node)
    await response.body?.cancel()
    if (response.status === status || Date.now() > deadline) return response.status
    await Bun.sleep(10)
  }
}

if (!redisAvailable) warnSkipped('the chat thread policies of two nodes (Redis run registry)')
else
  describe('chat thread policies on two nodes', () => {
    beforeEach(async () => {
      const url = await redisServer()
      storage = testAppStorage()
      const prefix = `test:${randomToken(6)}:`
      const logger = createLogger('silent')
      const node = () =>
        createTestApp({
          storage,
          logger,
          clock,
          agents: () => createScriptedAgent(() => ({ steps: [{ kind: 'text', chunks: ['ok'] }] })),
          ...redisNode({ url, storage, logger, prefix }),
        })
      nodeA = node()
      nodeB = node()
      await Promise.all([nodeA.ready, nodeB.ready])
    })
    afterEach(async () => {
      await nodeA.close()
      await nodeB.close()
      await storage.close()
    })

    it('applies a policy changed on one node to that node’s next turn and to the other node’s within moments', async () => {
      // Both nodes have read (and keep) the deployment's policies: none.
      expect(await statusWithin(nodeA, 200)).toBe(200)
      expect(await statusWithin(nodeB, 200)).toBe(200)
      await setPolicies(nodeA, denyCreate)
      const refused = await chat(nodeA)
      expect(refused.status).toBe(403)
      expect(await statusWithin(nodeB, 403)).toBe(403)
      await setPolicies(nodeB, [])
      expect((await chat(nodeB)).status).toBe(200)
      expect(await statusWithin(nodeA, 200)).toBe(200)
    })

    it('keeps the policies off each turn’s path: a change nobody announced applies once they are too old', async () => {
      expect(await statusWithin(nodeB, 200)).toBe(200)
      // Written behind the service's back (as a lost announcement would leave it): no node reads it at once.
      const { aiEngineerSettings } = storage.tables
      await storage.db
        .insert(aiEngineerSettings)
        .values({ deploymentId: 1, settings: { chatThreadPolicies: denyCreate }, updatedAt: clock() })
        .onConflictDoUpdate({
          target: aiEngineerSettings.deploymentId,
          set: { settings: { chatThreadPolicies: denyCreate } },
        })
      expect(
        (await storage.db.select().from(aiEngineerSettings).where(eq(aiEngineerSettings.deploymentId, 1))).length,
      ).toBe(1)
      expect((await chat(nodeB)).status).toBe(200)
      clock.advance(POLICIES_MAX_AGE_MS)
      expect((await chat(nodeB)).status).toBe(403)
    })
  })
