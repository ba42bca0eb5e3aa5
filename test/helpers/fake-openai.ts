import type { Server } from 'bun'

export type FakeTurn =
  /**
   * `id` names the call as the provider does (default `call_<request>_<index>`; some servers repeat one). With
   * `chunkDelayMs`, each call's arguments come in pieces of 8 characters, that long apart.
   */
  | { text?: string[]; toolCalls: Array<{ name: string; arguments: unknown; id?: string }>; chunkDelayMs?: number }
  /**
   * `reasoning` comes first, as `reasoning_content` deltas; with `chunkDelayMs`, every chunk that long apart.
   * `finishReason` is the provider's word for why it stopped (default `stop`; `length`, `content_filter`).
   */
  | { text: string[]; reasoning?: string[]; chunkDelayMs?: number; finishReason?: string }
  | { status: number; body: string; headers?: Record<string, string> }
  | { malformed: true }
  /** Sends these text chunks, then drops the connection mid-answer. */
  | { cut: string[] }
  /** Accepts the request and never answers (until the client gives up). */
  | { hang: true }

/**
 * A local OpenAI-compatible chat-completions server that streams (SSE) the scripted turns in order: each request gets
 * the next turn. It records the requests so tests can check what the agent sent.
 */
export function startFakeOpenAI(turns: FakeTurn[]) {
  const requests: Array<Record<string, unknown>> = []
  let hanging = 0
  let next = 0
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 0, model: 'fake', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`
  const server: Server<unknown> = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    reusePort: false,
    async fetch(request) {
      const body = (await request.json()) as Record<string, unknown>
      requests.push(body)
      const turn = turns[Math.min(next++, turns.length - 1)]
      if ('hang' in turn) {
        hanging++
        return new Promise<Response>((resolve) => {
          request.signal.addEventListener('abort', () => resolve(new Response(null, { status: 499 })), { once: true })
        })
      }
      if ('status' in turn)
        return new Response(turn.body, {
          status: turn.status,
          headers: { 'content-type': 'application/json', ...turn.headers },
        })
      if ('cut' in turn) {
        const pieces = [
          chunk({ role: 'assistant', content: '' }),
          ...turn.cut.map((piece) => chunk({ content: piece })),
        ]
        const cut = new ReadableStream<string>({
          async pull(controller) {
            const next = pieces.shift()
            if (next === undefined) return controller.error(new Error('connection reset'))
            controller.enqueue(next)
            await Bun.sleep(5)
          },
        })
        return new Response(cut, { headers: { 'content-type': 'text/event-stream' } })
      }
      const chunks: string[] = []
      if ('malformed' in turn) chunks.push('data: {"id": not json\n\n')
      else if ('toolCalls' in turn) {
        for (const piece of turn.text ?? []) chunks.push(chunk({ role: 'assistant', content: piece }))
        turn.toolCalls.forEach((call, index) => {
          chunks.push(
            chunk({
              role: 'assistant',
              tool_calls: [
                {
                  index,
                  id: call.id ?? `call_${next}_${index}`,
                  type: 'function',
                  function: { name: call.name, arguments: '' },
                },
              ],
            }),
          )
          const args = JSON.stringify(call.arguments)
          const pieces = turn.chunkDelayMs ? (args.match(/.{1,8}/gs) ?? []) : [args]
          for (const piece of pieces) chunks.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }))
        })
        chunks.push(chunk({}, 'tool_calls'))
      } else {
        chunks.push(chunk({ role: 'assistant', content: '' }))
        for (const piece of turn.reasoning ?? []) chunks.push(chunk({ reasoning_content: piece }))
        for (const piece of turn.text) chunks.push(chunk({ content: piece }))
        chunks.push(chunk({}, turn.finishReason ?? 'stop'))
      }
      // The provider's usage report, as OpenAI sends it when asked to (`stream_options.include_usage`).
      chunks.push(
        `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 0, model: 'fake', choices: [], usage: { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 } })}\n\n`,
      )
      chunks.push('data: [DONE]\n\n')
      const delayMs = 'chunkDelayMs' in turn ? (turn.chunkDelayMs ?? 0) : 0
      if (delayMs === 0) return new Response(chunks.join(''), { headers: { 'content-type': 'text/event-stream' } })
      const stream = new ReadableStream<string>({
        async pull(controller) {
          const next = chunks.shift()
          if (next === undefined) return controller.close()
          await Bun.sleep(delayMs)
          controller.enqueue(next)
        },
      })
      return new Response(stream, { headers: { 'content-type': 'text/event-stream' } })
    },
  })
  return {
    url: `http://127.0.0.1:${server.port}/v1`,
    requests,
    /** How many requests got a turn that never answers. */
    hanging: () => hanging,
    stop: () => server.stop(true),
  }
}
