import { afterAll, beforeAll, it } from 'bun:test'
import { apiKey, createTestApp, type TestApp } from './helpers/app'
import { chatBase, finalAnswer, mergeLines, readLines } from './helpers/chat'
import { keys } from './helpers/fixtures'
let test: TestApp
beforeAll(() => { test = createTestApp() }, 60_000)
afterAll(async () => { await test.close() })
it('asks', async () => {
  const asks: (string | string[])[] = JSON.parse(process.env.ASK ?? '[]')
  for (const [i, ask] of asks.entries()) {
    let chatId: string | undefined
    for (const input of Array.isArray(ask) ? ask : [ask]) {
      const response = await test.request('POST', `${chatBase()}/stream-chat-state`, {
        headers: apiKey(keys.admin),
        body: { input, sessionSettings: { externalId: `ask-${i}` }, ...(chatId ? { chatId } : {}) },
      })
      const lines = await readLines(response)
      chatId ??= (lines[0]?.state as { chatId?: string } | undefined)?.chatId
      const tools = lines.filter((l: any) => l.toolCall?.result).map((l: any) => JSON.stringify(l.toolCall.input).slice(0, 300))
      console.log(`\n### ${input}\n${finalAnswer(mergeLines(lines))?.content}\n  tools: ${tools.join(' | ')}`)
    }
  }
}, 120_000)
