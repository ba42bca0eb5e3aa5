import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { createLogger } from '../../../lib/logger'
import { Metrics } from '../../../lib/metrics'
import type { AgentInfo, DeploymentInfo } from '../../../plugins/auth/directory'
import { createChatService, type ChatService } from '../../../plugins/chat/turn/chat-service'
import type { ChatParticipant } from '../../../plugins/chat/turn/participant'
import { ndjsonStream } from '../../../plugins/chat/stream/run-readers'
import { LEASE_LOST_MESSAGE, type Run } from '../../../plugins/chat/registry/run'
import { MemoryRunRegistry } from '../../../plugins/chat/registry/memory-run-registry'
import { type RunStart } from '../../../plugins/chat/registry/run-registry'
import { createScriptedAgent } from '../../../plugins/chat/run/scripted-agent'
import type { ThreadStore } from '../../../db/repositories/threads'
import { lineReader, messageId, type Line } from '../../helpers/chat'
import { gate } from '../../helpers/gates'
import type { ThreadStoreHarness } from '../../helpers/thread-stores'

/** A registry shared by two nodes where both claims are made only once both nodes have looked for a run. */
class ClaimsTogether extends MemoryRunRegistry {
  private arrived = 0
  private bothArrived: () => void = () => undefined
  private readonly together = new Promise<void>((resolve) => (this.bothArrived = resolve))

  override async start(key: RunStart): Promise<Run | undefined> {
    if (++this.arrived === 2) this.bothArrived()
    await this.together
    return super.start(key)
  }
}

/**
 * The durability rules of a chat turn, through the chat service on each thread store: the user message and its run
 * are committed before the first assistant line, and every line a client receives shows only what is committed.
 */
export function chatTurnStorage(name: string, open: () => Promise<ThreadStoreHarness>) {
  describe(`chat turns on ${name}`, () => {
    let harness: ThreadStoreHarness
    let store: ThreadStore
    let chat: ChatService
    let participant: ChatParticipant
    let release: () => void = () => undefined
    beforeAll(async () => {
      harness = await open()
      store = harness.store()
      const deployment: DeploymentInfo = {
        id: harness.owner.deploymentId,
        accountId: harness.owner.accountId,
        name: 'Shop',
        model: 'demo',
        tokenAuthEnabled: false,
        tokenAuthSecret: null,
        accountName: 'acme',
        branches: ['main'],
        defaultBranch: 'main',
      }
      const agent: AgentInfo = {
        id: harness.owner.agentId,
        name: 'Analyst',
        kind: 'scripted',
        config: null,
        deployment,
      }
      participant = {
        agent,
        deployment,
        userId: harness.owner.userId,
        access: { userId: harness.owner.userId, groups: [], userAttributes: {}, securityContext: {} },
      }
      chat = createChatService({
        store,
        registry: new MemoryRunRegistry(),
        // Each turn streams a tool call and an answer in chunks; the first waits for the test before its last chunk.
        agents: () =>
          createScriptedAgent((turn) => ({
            steps: [
              { kind: 'tool', name: 'query', input: { measure: 'orders' }, result: { rows: 40 } },
              {
                kind: 'text',
                chunks: ['There ', 'were ', '40 ', 'orders.'],
                hold:
                  turn.input === 'How many orders?'
                    ? { after: 3, until: new Promise<void>((resolve) => (release = resolve)) }
                    : undefined,
              },
            ],
          })),
        logger: createLogger('silent'),
        metrics: new Metrics(),
        clock: Date.now,
      })
      // A throwaway database server may take a while to start on a busy machine.
    }, 120_000)
    afterAll(async () => {
      release()
      await chat?.shutdown(5000)
      await harness?.close()
    })
    const read = async (request: Parameters<ChatService['open']>[0]) =>
      lineReader(new Response(ndjsonStream(await chat.open(request, participant), 10_000)))

    it('commits the user message and its run before the first line after __cutoff__, and each line shows only what is stored', async () => {
      const reader = await read({ input: 'How many orders?', messageId: messageId(1) })
      const cutoff = (await reader.next())!
      const chatId = (cutoff.state as { chatId: string }).chatId
      const echo = (await reader.next())!
      expect(echo).toMatchObject({ role: 'user', content: 'How many orders?', sort: 1 })
      // The run goes on meanwhile (its answer may be stored too by the time this read answers).
      const [stored] = await store.messages(chatId, false)
      expect([stored.role, stored.content]).toEqual(['user', 'How many orders?'])
      expect(await store.thread(chatId)).toMatchObject({ userId: harness.owner.userId })

      // Every assistant line received: the stored message already holds at least what the client was shown.
      const shown = new Map<string, string>()
      for (let line = await reader.next(); line && line.id !== '__state__'; line = await reader.next()) {
        const id = line.id!
        shown.set(id, line.isDelta ? (shown.get(id) ?? '') + (line.content ?? '') : (line.content ?? ''))
        const saved = (await store.messages(chatId, false)).find((message) => message.id === id)
        expect(saved?.content.startsWith(shown.get(id)!)).toBe(true)
        if (line.toolCall?.result) expect(saved?.toolCall?.result).toBe(line.toolCall.result)
        if (shown.get(id) === 'There were 40 ') {
          // Held mid-answer: a second turn on the thread is refused, and the same messageId rejoins from the start.
          const busy = await (await read({ chatId, input: 'Again?' })).rest()
          expect(busy.map((line) => line.error)).toContain('Streaming for thread is in progress')
          const rejoined = await read({ chatId, messageId: messageId(1) })
          expect((await rejoined.next())?.state).toMatchObject({ chatId, isStreaming: true })
          expect((await rejoined.next())?.content).toBe('How many orders?')
          await rejoined.cancel()
          release()
        }
      }
      const finalLines: Line[] = []
      // The thread as read afterwards is the thread the run ended with.
      const state = await (await read({ chatId })).rest()
      finalLines.push(...state)
      const messages = (finalLines[1].state as { messages: Line[] }).messages
      expect(messages.map((message) => message.content)).toEqual(['How many orders?', '', 'There were 40 orders.'])
      expect(messages.every((message) => !message.isInProcess)).toBe(true)
    })

    it('starts one run for the same message sent twice at once: the second request joins it', async () => {
      for (const chatId of [undefined, (await (await read({ input: 'Hello' })).rest())[0].state!.chatId]) {
        const request = { chatId, input: 'Same message', messageId: messageId(chatId ? 20 : 10) }
        const [first, second] = await Promise.all([chat.open(request, participant), chat.open(request, participant)])
        expect(second.run).toBe(first.run!)
        const [cutoff] = (await lineReader(new Response(ndjsonStream(second, 10_000))).rest()).filter(
          (line) => line.id === '__cutoff__',
        )
        expect(cutoff.state).toMatchObject({ isStreaming: true })
        const [, state] = await (await read({ chatId: first.run!.key.chatId })).rest()
        const messages = (state.state as { messages: Line[] }).messages
        expect(messages.filter((message) => message.content === 'Same message')).toHaveLength(1)
      }
    })

    it('joins the run another node started for the same message when that node claimed the thread first', async () => {
      const chatId = (await (await read({ input: 'Hello again' })).rest())[0].state!.chatId
      const registry = new ClaimsTogether()
      let release = () => undefined as void
      const held = new Promise<void>((resolve) => (release = resolve))
      const node = () =>
        createChatService({
          store: harness.store(),
          registry,
          agents: () =>
            createScriptedAgent(() => ({
              steps: [{ kind: 'text', chunks: ['Par', 'tial'], hold: { after: 1, until: held } }],
            })),
          logger: createLogger('silent'),
          metrics: new Metrics(),
          clock: Date.now,
        })
      const [nodeA, nodeB] = [node(), node()]
      try {
        const request = { chatId, input: 'Same message', messageId: messageId(30) }
        const [onA, onB] = await Promise.all([nodeA.open(request, participant), nodeB.open(request, participant)])
        expect(onA.run).toBeDefined()
        expect(onB.run).toBe(onA.run!)
        release()
        const [linesA, linesB] = await Promise.all(
          [onA, onB].map((source) => lineReader(new Response(ndjsonStream(source, 10_000))).rest()),
        )
        expect(linesA.concat(linesB).filter((line) => line.error !== undefined)).toEqual([])
        const messages = (linesA.at(-1)!.state as { messages: Line[] }).messages
        expect(messages.filter((message) => message.content === 'Same message')).toHaveLength(1)
      } finally {
        release()
        await nodeA.shutdown(5000)
        await nodeB.shutdown(5000)
      }
    })

    it('starts no run before the start-up recovery of the previous process is done', async () => {
      const recovery = gate()
      const waiting = createChatService({
        store: harness.store(),
        registry: new MemoryRunRegistry(),
        agents: () => createScriptedAgent(() => ({ steps: [{ kind: 'text', chunks: ['Done'] }] })),
        logger: createLogger('silent'),
        metrics: new Metrics(),
        clock: Date.now,
        ready: recovery.promise,
      })
      try {
        let opened = false
        const opening = waiting.open({ input: 'Too early?', messageId: messageId(40) }, participant).then((source) => {
          opened = true
          return source
        })
        // Long enough for a turn to be opened and stored on either database.
        for (let read = 0; read < 5; read++) await store.thread('none')
        await Bun.sleep(20)
        expect(opened).toBe(false)
        recovery.open()
        const lines = await lineReader(new Response(ndjsonStream(await opening, 10_000))).rest()
        expect(lines.at(-1)?.id).toBe('__state__')
      } finally {
        recovery.open()
        await waiting.shutdown(5000)
      }
    })

    /** Another node on the same store whose runs stream "Half " and then wait for `until` before the rest. */
    const nodeHeldAfterHalf = (until: Promise<void>) =>
      createChatService({
        store: harness.store(),
        registry: new MemoryRunRegistry(),
        agents: () =>
          createScriptedAgent(() => ({
            steps: [{ kind: 'text', chunks: ['Half ', 'and the rest'], hold: { after: 1, until } }],
          })),
        logger: createLogger('silent'),
        metrics: new Metrics(),
        clock: Date.now,
      })

    it('stops a run another node took over: its client gets one error line, the thread stays as that node left it', async () => {
      const held = gate()
      const node = nodeHeldAfterHalf(held.promise)
      try {
        const source = await node.open({ input: 'A slow one', messageId: messageId(50) }, participant)
        const reader = lineReader(new Response(ndjsonStream(source, 10_000)))
        const head: Line[] = []
        for (let line = await reader.next(); line; line = await reader.next()) {
          head.push(line)
          if (line.isDelta && line.content === 'Half ') break
        }
        const chatId = head[0].state!.chatId!
        const runId = (await harness.runningRunOf(chatId))!
        // Its node went quiet past its lease: another node marks the run interrupted.
        expect(await harness.interrupt(runId, Date.now())).toBe(true)
        const leftBy = await store.messages(chatId, false)
        expect(leftBy[1]).toMatchObject({ content: 'Half ', interrupted: true })
        const runLeft = await harness.run(runId)

        // It wakes and streams on: its next save is refused, and it stops there.
        held.open()
        expect(await reader.rest()).toEqual([{ error: LEASE_LOST_MESSAGE }])
        await store.flushWrites()
        expect(await store.messages(chatId, false)).toEqual(leftBy)
        expect(await harness.run(runId)).toEqual(runLeft)
      } finally {
        held.open()
        await node.shutdown(5000)
      }
    })

    it('tells the client of a run it aborted why, when another node ended that run in its place', async () => {
      const held = gate()
      const node = nodeHeldAfterHalf(held.promise)
      try {
        const source = await node.open({ input: 'Stop this one', messageId: messageId(51) }, participant)
        const reader = lineReader(new Response(ndjsonStream(source, 10_000)))
        let chatId = ''
        for (let line = await reader.next(); line; line = await reader.next()) {
          chatId ||= line.state?.chatId ?? ''
          if (line.isDelta && line.content === 'Half ') break
        }
        const runId = (await harness.runningRunOf(chatId))!
        // The node did not answer the abort in time: another node ended the run as aborted in its place.
        expect(await harness.interrupt(runId, Date.now(), { error: 'Run aborted', status: 'aborted' })).toBe(true)
        const leftBy = await store.messages(chatId, false)
        source.run!.abort('Run aborted')
        expect(await reader.rest()).toEqual([{ error: 'Run aborted' }])
        await store.flushWrites()
        expect(await store.messages(chatId, false)).toEqual(leftBy)
        expect(await harness.run(runId)).toMatchObject({ status: 'aborted', error: 'Run aborted' })
      } finally {
        held.open()
        await node.shutdown(5000)
      }
    })

    it('answers a finished messageId from the database with the stored thread', async () => {
      const reader = await read({ input: 'Once more', messageId: messageId(2) })
      const lines = await reader.rest()
      const state = lines.at(-1)!.state as { chatId: string; messages: Line[] }
      const again = await (await read({ messageId: messageId(2) })).rest()
      expect(again.map((line) => line.id)).toEqual(['__cutoff__', '__state__'])
      expect((again[1].state as { messages: Line[] }).messages).toEqual(state.messages)
    })

    it('stores the empty thread a request without input or chatId gets, and starts its first turn in it', async () => {
      const empty = await (await read({})).rest()
      expect(empty.map((line) => line.id)).toEqual(['__cutoff__', '__state__'])
      const chatId = (empty[0].state as { chatId: string }).chatId
      expect(await store.thread(chatId)).toMatchObject({ id: chatId, userId: harness.owner.userId })
      expect(await store.messages(chatId, false)).toEqual([])
      const lines = await (await read({ chatId, input: 'First words' })).rest()
      expect(lines[0].state).toEqual({ chatId, isStreaming: false })
      const messages = (lines.at(-1)!.state as { messages: Line[] }).messages
      expect(messages[0]).toMatchObject({ role: 'user', content: 'First words', sort: 1 })
      expect(await store.messages(chatId, false)).toEqual(messages as never)
    })
  })
}
