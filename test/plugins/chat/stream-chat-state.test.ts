import { afterEach, beforeEach, describe, expect, it } from 'bun:test'
import { SQL } from 'bun'
import type { Storage } from '../../../db/client'
import { isSqliteStorage } from '../../../db/sqlite/sqlite-storage'
import { AgentError, type Agent, type AgentFactory } from '../../../plugins/chat/run/agent'
import { createScriptedAgent, type Script } from '../../../plugins/chat/run/scripted-agent'
import { apiKey, createTestApp, type TestApp } from '../../helpers/app'
import { storedRuns } from '../../helpers/chat-rows'
import { chatBase, finalAnswer, lineReader, mergeLines, messageId, type Line } from '../../helpers/chat'
import { keys } from '../../helpers/fixtures'
import { gate, until } from '../../helpers/gates'
import { transports, type Transport } from '../../helpers/transports'

const admin = apiKey(keys.admin)
const alice = { externalId: 'alice' }
const bob = { externalId: 'bob' }

/** The script the next turn plays; tests set it before sending. */
let script: Script
/** When set, the next turn fails in the middle of its answer. */
let failing = false
/** When set, the next turn's agent cannot even be built (its module failed to load). */
let unbuildable = false
const failingAgent: Agent = {
  async *run() {
    failing = false
    yield { type: 'message-start', id: 'partial', graphPath: ['final'] }
    yield { type: 'text-delta', id: 'partial', delta: 'Half an' }
    throw new AgentError('Model provider failed')
  },
}
/** Makes every insert of an assistant message fail in the database, as a full disk or a broken column would. */
async function refuseAssistantMessages(storage: Storage): Promise<void> {
  if (isSqliteStorage(storage)) {
    storage.sqlite.run(`CREATE TRIGGER refuse_answers BEFORE INSERT ON chat_messages WHEN NEW.role = 'assistant'
      BEGIN SELECT RAISE(ABORT, 'disk full'); END`)
    return
  }
  // The test database has no password (its URL is the storage's path as is).
  const client = new SQL(storage.path, { max: 1 })
  try {
    await client.unsafe(`CREATE FUNCTION refuse_answers() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.role = 'assistant' THEN RAISE EXCEPTION 'disk full'; END IF; RETURN NEW; END $$`)
    await client.unsafe(`CREATE TRIGGER refuse_answers BEFORE INSERT ON chat_messages
      FOR EACH ROW EXECUTE FUNCTION refuse_answers()`)
  } finally {
    await client.close()
  }
}

const agents: AgentFactory = () => {
  if (unbuildable) {
    unbuildable = false
    throw new Error('Cannot find module "./analyst-agent"')
  }
  return failing ? failingAgent : createScriptedAgent(() => script)
}
const simple: Script = { steps: [{ kind: 'text', chunks: ['The answer', ' is ', '42.'] }] }

for (const { name, create } of transports) {
  describe(`POST {chat_base_url}/chat/stream-chat-state over ${name}`, () => {
    let test: TestApp
    let transport: Transport
    const send = async (body: Record<string, unknown>, settings: Record<string, unknown> = alice) =>
      (await transport.open({ sessionSettings: settings, ...body }, admin)).rest()
    /** The thread's messages as storage holds them (a state read: `__cutoff__`, then `__state__`). */
    const readThread = async (chatId: string) => {
      const lines = await lineReader(
        await test.request('POST', `${chatBase()}/stream-chat-state`, {
          headers: admin,
          body: { chatId, sessionSettings: alice },
        }),
      ).rest()
      return (lines.at(-1)!.state as { messages: Line[] }).messages
    }

    beforeEach(() => {
      script = simple
      failing = false
      unbuildable = false
      test = createTestApp({ agents })
      transport = create(test.app)
    })
    afterEach(async () => {
      await transport.close()
      await test.close()
    })

    it('creates a thread and streams __cutoff__, the echo, deltas of one id and __state__ in order', async () => {
      const lines = await send({ input: 'What is the answer?', messageId: messageId(1) })
      expect(lines[0]).toEqual({ id: '__cutoff__', sort: 0, state: { chatId: expect.any(String), isStreaming: false } })
      expect(lines[1]).toEqual({
        id: messageId(1),
        role: 'user',
        content: 'What is the answer?',
        isDelta: false,
        isInProcess: false,
        sort: 1,
      })
      const assistant = lines.filter((line) => line.role === 'assistant')
      expect(new Set(assistant.map((line) => line.id)).size).toBe(1)
      expect(assistant.slice(1).every((line) => line.isDelta === true)).toBe(true)
      expect(assistant.slice(0, -1).every((line) => line.isInProcess === true)).toBe(true)
      expect(assistant.at(-1)?.isInProcess).toBe(false)
      const state = lines.at(-1)!
      expect(state.id).toBe('__state__')
      const stored = (state.state as { messages: Line[] }).messages
      expect(stored.map((message) => message.role)).toEqual(['user', 'assistant'])
      expect(stored[1].content).toBe(assistant.map((line) => line.content).join(''))
      expect(stored[1].content).toBe('The answer is 42.')
      const sorts = lines.map((line) => line.sort as number)
      expect(sorts).toEqual([...sorts].sort((a, b) => a - b))
      await until(async () => (await test.deps.metrics.render()).includes('chat_runs_total{outcome="completed"} 1'))
      const metrics = await test.deps.metrics.render()
      expect(metrics).toContain(`chat_lines_sent_total ${lines.length}`)
      expect(metrics).toContain('chat_active_runs 0')
      expect(metrics).toContain('chat_readers 0')
    })

    it('streams and stores U+FFFD for a NUL character in the model output, on every storage', async () => {
      // Postgres cannot store NUL in text: the save failed and was retried forever, its lines never sent.
      script = { steps: [{ kind: 'text', chunks: ['Nul \u0000 here', '.'] }] }
      const lines = await send({ input: 'Hello', messageId: messageId(1) })
      expect(finalAnswer(mergeLines(lines))?.content).toBe('Nul \uFFFD here.')
      const { chatId } = lines[0].state as { chatId: string }
      const stored = await readThread(chatId)
      expect(stored[1].content).toBe('Nul \uFFFD here.')
    })

    it('streams text outside ASCII byte for byte, a lone surrogate as the U+FFFD storage holds', async () => {
      // A reader's chunk goes to the socket as text, for the socket to encode: multi-byte and astral characters, and
      // a chunk of many lines at once (the end of the turn) must arrive as UTF-8 exactly.
      const chunks = ['Réponse ', 'à 42 €', ' 📈', ' 中文', ' \uD800 seul']
      const text = 'Réponse à 42 € 📈 中文 \uFFFD seul'
      script = { steps: [{ kind: 'text', chunks }] }
      const lines = await send({ input: 'Hello', messageId: messageId(1) })
      expect(finalAnswer(mergeLines(lines))?.content).toBe(text)
      const state = lines.at(-1)!.state as { messages: Line[] }
      expect(state.messages[1].content).toBe(text)
      // What is stored reads back as what was streamed.
      const { chatId } = lines[0].state as { chatId: string }
      const stored = await readThread(chatId)
      expect(stored[1].content).toBe(text)
    })

    it('keeps a character outside the BMP whole when a model splits its surrogate pair between two deltas', async () => {
      // A provider's JSON escapes can cut '📈' (\uD83D\uDCC8) in two; each half alone is a lone surrogate.
      const chunks = ['Growth ', '\uD83D', '\uDCC8 up', ' and a last \uD83D']
      const text = 'Growth 📈 up and a last \uFFFD'
      script = { steps: [{ kind: 'text', chunks }] }
      const lines = await send({ input: 'Hello', messageId: messageId(1) })
      const deltas = lines.filter((line) => line.role === 'assistant' && line.isDelta === true)
      expect(deltas.every((line) => (line.content as string).isWellFormed())).toBe(true)
      expect(finalAnswer(mergeLines(lines))?.content).toBe(text)
      const { chatId } = lines[0].state as { chatId: string }
      expect((await readThread(chatId))[1].content).toBe(text)
    })

    it('echoes a question holding a lone surrogate as it is stored, with U+FFFD in its place', async () => {
      const lines = await send({ input: 'x\uD800y \uDC00', messageId: messageId(1) })
      const echo = lines.find((line) => line.id === messageId(1))!
      expect(echo.content).toBe('x\uFFFDy \uFFFD')
      const { chatId } = lines[0].state as { chatId: string }
      const stored = await readThread(chatId)
      expect(stored[0].content).toBe('x\uFFFDy \uFFFD')
      expect((lines.at(-1)!.state as { messages: Line[] }).messages[0].content).toBe(stored[0].content)
    })

    it('ends with an error, not lines storage does not hold, when the answer cannot be saved', async () => {
      await refuseAssistantMessages(test.deps.storage)
      const lines = await send({ input: 'Hello', messageId: messageId(1) })
      // The echo of the stored user message, then the error: no delta of the unsaved answer, no __state__.
      expect(lines.map((line) => line.id ?? line.error)).toEqual([
        '__cutoff__',
        messageId(1),
        'The answer could not be saved; please try again',
      ])
      expect(await storedRuns(test.storage)).toEqual([
        { status: 'failed', error: 'The answer could not be saved; please try again' },
      ])
    })

    it('returns __cutoff__ then __state__ for a chatId without input', async () => {
      const first = await send({ input: 'Hello', messageId: messageId(1) })
      const chatId = (first[0].state as { chatId: string }).chatId
      const lines = await send({ chatId })
      expect(lines.map((line) => line.id)).toEqual(['__cutoff__', '__state__'])
      expect(lines[0].state).toEqual({ chatId, isStreaming: false })
      expect((lines[1].state as { messages: Line[] }).messages).toEqual(
        (first.at(-1)!.state as { messages: Line[] }).messages,
      )
    })

    it('sends a tool call line without, then with, its result, and a failed tool result holding { error }', async () => {
      script = {
        steps: [
          { kind: 'tool', name: 'serviceMeta', input: {}, result: { cubes: ['orders'] } },
          {
            kind: 'tool',
            name: 'serviceSqlApi',
            input: { sqlQuery: 'SELECT 1' },
            result: { error: 'Unknown member: x' },
          },
          { kind: 'text', chunks: ['Done.'] },
        ],
      }
      const lines = await send({ input: 'Go' })
      const tools = lines.filter((line) => line.toolCall)
      expect(tools).toHaveLength(4)
      const [metaCall, metaResult, sqlCall, sqlResult] = tools as Array<
        Line & { toolCall: { name: string; input: string; result?: string } }
      >
      expect(metaCall.toolCall).toEqual({ name: 'serviceMeta', input: '{}' })
      expect(metaCall.graphPath).toEqual(['analyst', 'tools'])
      expect(metaResult.id).toBe(metaCall.id)
      expect(JSON.parse(metaResult.toolCall.result!)).toEqual({ cubes: ['orders'] })
      expect(JSON.parse(sqlCall.toolCall.input)).toEqual({ sqlQuery: 'SELECT 1' })
      expect(sqlCall.toolCall.result).toBeUndefined()
      expect(JSON.parse(sqlResult.toolCall.result!)).toEqual({ error: 'Unknown member: x' })
    })

    it('answers an unknown branch with an error line in a 200 stream', async () => {
      expect(await send({ input: 'Hi', activeBranchName: 'nope' })).toEqual([
        { error: 'Branch nope not found in deployment 1' },
      ])
    })

    it("treats an unknown chatId and another user's chatId alike: an error line", async () => {
      const first = await send({ input: 'Mine' }, alice)
      const chatId = (first[0].state as { chatId: string }).chatId
      expect(await send({ chatId: 'no-such-chat', input: 'x' })).toEqual([{ error: 'Chat no-such-chat not found' }])
      expect(await send({ chatId, input: 'Let me in' }, bob)).toEqual([{ error: `Chat ${chatId} not found` }])
      expect(await send({ chatId }, bob)).toEqual([{ error: `Chat ${chatId} not found` }])
    })

    it('refuses a second turn while the thread is streaming', async () => {
      const hold = gate()
      script = {
        steps: [
          { kind: 'text', chunks: ['partial'] },
          { kind: 'wait', until: hold.promise },
          { kind: 'text', chunks: ['rest'] },
        ],
      }
      const running = await transport.open({ sessionSettings: alice, input: 'Slow', messageId: messageId(1) }, admin)
      const cutoff = await running.next()
      const chatId = (cutoff!.state as { chatId: string }).chatId
      expect(await send({ chatId, input: 'Another', messageId: messageId(2) })).toEqual([
        { error: 'Streaming for thread is in progress' },
      ])
      hold.open()
      expect((await running.rest()).at(-1)?.id).toBe('__state__')
    })

    it('joins a run registered and stored between its registry lookup and its store lookup, not its stale state', async () => {
      // Two requests for one new message on two nodes at once: the second asked the registry before the first
      // registered, then found the message stored. It must follow the run, not report the thread as finished.
      const hold = gate()
      script = {
        steps: [
          { kind: 'text', chunks: ['partial '] },
          { kind: 'wait', until: hold.promise },
          { kind: 'text', chunks: ['rest'] },
        ],
      }
      const body = { sessionSettings: alice, input: 'Same', messageId: messageId(7) }
      const first = await transport.open(body, admin)
      expect(((await first.next())!.state as { isStreaming: boolean }).isStreaming).toBe(false)
      await until(async () => (await storedRuns(test.storage)).length > 0)
      const registry = test.deps.registry
      const forMessage = registry.forMessage.bind(registry)
      registry.forMessage = async () => undefined
      const second = await transport.open(body, admin)
      registry.forMessage = forMessage
      expect(((await second.next())!.state as { isStreaming: boolean }).isStreaming).toBe(true)
      hold.open()
      const [fromFirst, fromSecond] = await Promise.all([first.rest(), second.rest()])
      expect(fromSecond).toEqual(fromFirst)
    })

    it('lets a request with the active messageId rejoin and receive the identical sequence', async () => {
      const hold = gate()
      script = {
        steps: [
          { kind: 'text', chunks: ['one ', 'two '] },
          { kind: 'wait', until: hold.promise },
          { kind: 'text', chunks: ['three'] },
        ],
      }
      const original = await transport.open({ sessionSettings: alice, input: 'Count', messageId: messageId(7) }, admin)
      const originalLines: Line[] = []
      for (let index = 0; index < 4; index++) originalLines.push((await original.next())!)
      const chatId = (originalLines[0].state as { chatId: string }).chatId
      const joiner = await transport.open({ sessionSettings: alice, chatId, messageId: messageId(7) }, admin)
      const lostChat = await transport.open({ sessionSettings: alice, messageId: messageId(7) }, admin)
      // Both have joined once their __cutoff__ is in; only then may the run go on.
      const joined = [(await joiner.next())!]
      const rejoinedWithoutChat = [(await lostChat.next())!]
      hold.open()
      originalLines.push(...(await original.rest()))
      joined.push(...(await joiner.rest()))
      rejoinedWithoutChat.push(...(await lostChat.rest()))
      expect(joined[0].state).toEqual({ chatId, isStreaming: true })
      expect(joined.slice(1)).toEqual(originalLines.slice(1))
      expect(rejoinedWithoutChat.slice(1)).toEqual(originalLines.slice(1))
    })

    it('answers a completed messageId with __cutoff__ and __state__ without running it again', async () => {
      const first = await send({ input: 'Once', messageId: messageId(3) })
      const chatId = (first[0].state as { chatId: string }).chatId
      const again = await send({ chatId, input: 'Once', messageId: messageId(3) })
      expect(again.map((line) => line.id)).toEqual(['__cutoff__', '__state__'])
      expect((again[1].state as { messages: Line[] }).messages).toHaveLength(2)
      const withoutChat = await send({ input: 'Once', messageId: messageId(3) })
      expect(withoutChat.map((line) => line.id)).toEqual(['__cutoff__', '__state__'])
      expect(withoutChat[0].state).toEqual({ chatId, isStreaming: false })
      expect(await storedRuns(test.storage)).toHaveLength(1)
    })

    it('keeps running when the client disconnects', async () => {
      const hold = gate()
      script = {
        steps: [
          { kind: 'text', chunks: ['first'] },
          { kind: 'wait', until: hold.promise },
          { kind: 'text', chunks: ['second'] },
        ],
      }
      const turn = await transport.open({ sessionSettings: alice, input: 'Go', messageId: messageId(1) }, admin)
      const chatId = ((await turn.next())!.state as { chatId: string }).chatId
      await turn.next()
      turn.disconnect()
      hold.open()
      const runs = async () => (await storedRuns(test.storage)).filter((run) => run.status === 'completed').length
      await until(async () => (await runs()) === 1)
      const state = await send({ chatId })
      const messages = (state[1].state as { messages: Line[] }).messages
      expect(messages.map((message) => message.content)).toEqual(['Go', 'first', 'second'])
    })

    it('lets the final-answer rule pick the final answer', async () => {
      script = {
        steps: [
          { kind: 'text', graphPath: ['analyst'], chunks: ['Let me look.'] },
          { kind: 'tool', name: 'serviceMeta', input: {}, result: {} },
          { kind: 'text', graphPath: ['final'], chunks: ['Draft answer'] },
          { kind: 'text', graphPath: ['final', 'answer'], chunks: ['Revenue was 10.'] },
          { kind: 'text', graphPath: ['final', 'answer', 'footnote'], chunks: ['(not the answer)'] },
        ],
      }
      const lines = await send({ input: 'Revenue?' })
      expect(finalAnswer(mergeLines(lines))?.content).toBe('Revenue was 10.')
      expect(finalAnswer((lines.at(-1)!.state as { messages: Line[] }).messages as never)?.content).toBe(
        'Revenue was 10.',
      )
    })

    it('sends thinking only in development mode (a branch other than the default)', async () => {
      script = { steps: [{ kind: 'text', chunks: ['Answer'], thinking: 'Reasoning about it' }] }
      const main = await send({ input: 'Q' })
      expect(main.some((line) => 'thinking' in line)).toBe(false)
      expect(JSON.stringify(main.at(-1))).not.toContain('Reasoning')
      const dev = await send({ input: 'Q', activeBranchName: 'dev' })
      expect(dev.find((line) => line.thinking)?.thinking).toBe('Reasoning about it')
      const devState = (dev.at(-1)!.state as { messages: Line[] }).messages
      expect(devState[1].thinking).toBe('Reasoning about it')
    })

    it('sends thinking to a joiner of a development run only if the joiner is in development mode too', async () => {
      const hold = gate()
      script = {
        steps: [
          { kind: 'text', chunks: ['First'], thinking: 'Reasoning about it' },
          { kind: 'wait', until: hold.promise },
          { kind: 'text', chunks: ['Second'], thinking: 'More reasoning' },
        ],
      }
      const body = { sessionSettings: alice, input: 'Q', messageId: messageId(5) }
      const dev = await transport.open({ ...body, activeBranchName: 'dev' }, admin)
      const head = [(await dev.next())!, (await dev.next())!]
      const onMain = await transport.open(body, admin)
      const onDev = await transport.open({ ...body, activeBranchName: 'dev' }, admin)
      const [mainCutoff, devCutoff] = [(await onMain.next())!, (await onDev.next())!]
      hold.open()
      const [original, main, alsoDev] = [[...head, ...(await dev.rest())], await onMain.rest(), await onDev.rest()]
      expect(mainCutoff.state).toMatchObject({ isStreaming: true })
      expect(JSON.stringify(original)).toContain('More reasoning')
      expect(alsoDev).toEqual(original.slice(1))
      // The same lines, without thinking (in __state__ too).
      expect(JSON.stringify(main)).not.toContain('reasoning')
      expect(JSON.stringify(main)).not.toContain('thinking')
      const strip = (line: Line): unknown => {
        const { thinking: _, ...rest } = line
        if (line.id !== '__state__') return rest
        const state = line.state as { messages: Line[] }
        return { ...rest, state: { ...state, messages: state.messages.map(({ thinking: __, ...m }) => m) } }
      }
      expect(main as unknown[]).toEqual(original.slice(1).map(strip))
      expect(devCutoff.state).toEqual(mainCutoff.state)
    })

    it('stores and returns image attachments with the user message', async () => {
      const images = [{ mimeType: 'image/png', data: 'iVBORw0KGgo=', name: 'chart.png' }]
      const lines = await send({ input: 'See image', images })
      expect(lines[1].images).toEqual(images)
      expect((lines.at(-1)!.state as { messages: Line[] }).messages[0].images).toEqual(images)
    })

    it('ends the stream with an error line when the agent cannot be built, and frees the thread', async () => {
      unbuildable = true
      const lines = await send({ input: 'Q', messageId: messageId(1) })
      // It hung after the echo, the thread busy until a restart.
      expect(lines.map((line) => line.id ?? line.error)).toEqual([
        '__cutoff__',
        lines[1].id,
        'The agent failed to answer; please try again',
      ])
      expect(JSON.stringify(lines)).not.toContain('Cannot find module')
      const chatId = (lines[0].state as { chatId: string }).chatId
      expect((await storedRuns(test.storage)).map((run) => run.status)).toEqual(['failed'])
      const again = await send({ chatId, input: 'Again', messageId: messageId(2) })
      expect(again.at(-1)?.id).toBe('__state__')
    })

    it('ends the stream with an error line when the agent fails, keeping the partial answer', async () => {
      failing = true
      const lines = await send({ input: 'Q', messageId: messageId(1) })
      expect(lines.at(-1)).toEqual({ error: 'Model provider failed' })
      const chatId = (lines[0].state as { chatId: string }).chatId
      const messages = ((await send({ chatId }))[1].state as { messages: Line[] }).messages
      expect(messages[1]).toMatchObject({ content: 'Half an', interrupted: true, isInProcess: false })
    })
  })
}
