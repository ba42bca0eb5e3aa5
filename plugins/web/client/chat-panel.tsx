import type { ComponentChildren } from 'preact'
import { useEffect, useMemo, useRef, useState } from 'preact/hooks'
import { finalAnswerOf } from '../../../client/chat-stream'
import { problems } from './api'
import { ChatController, type ChatNotice } from './chat-controller'
import { MessageItem } from './chat-message'
import type { EmbedSession, ReadySession } from './embed-session'

/**
 * The chat: the thread as a live log (deltas as they arrive, tool calls with their SQL and results, the final
 * answer, error lines), and a composer with Send and Stop. Enter sends, Shift+Enter starts a new line.
 */
export function ChatPanel({ session, ready, surface }: { session: EmbedSession; ready: ReadySession; surface: 'chat' | 'dashboard' }) {
  const { context, token } = ready
  const agent = context.agent
  const controller = useMemo(
    () =>
      agent &&
      new ChatController({
        token,
        accountName: context.accountName,
        agentId: agent.id,
        storageKey: `embed-chat:${surface}:${context.accountName}:${agent.id}`,
        onSessionError: (error) => session.report(error),
      }),
    [token, agent?.id],
  )
  const [view, setView] = useState(controller?.view)
  const [input, setInput] = useState('')
  const log = useRef<HTMLDivElement>(null)
  const inputId = `${surface}-chat-input`

  useEffect(() => {
    if (!controller) return
    setView(controller.view)
    controller.onChange(() => setView(controller.view))
    void controller.restore()
    return () => controller.dispose()
  }, [controller])

  // Follow the answer as it grows, unless the reader scrolled up to read something earlier.
  const nearBottom = useRef(true)
  useEffect(() => {
    const element = log.current
    if (element && nearBottom.current) element.scrollTop = element.scrollHeight
  }, [view])

  if (!agent || !controller || !view) return <p class="chat-empty">{problems.noAgent.detail}</p>

  const final = finalAnswerOf(view.messages)
  const send = () => {
    const text = input.trim()
    if (!text || view.streaming || view.restoring) return
    setInput('')
    nearBottom.current = true
    void controller.send(text)
  }

  const items: ComponentChildren[] = []
  const notices = [...view.notices]
  for (const message of view.messages) {
    while (notices.length && notices[0].afterSort < message.sort) items.push(notice(notices.shift()!))
    items.push(<MessageItem key={message.id} message={message} isFinal={message === final} user={context.user} />)
  }
  for (const rest of notices) items.push(notice(rest))

  return (
    <div class="chat" data-surface={surface}>
      <div
        class="chat-log"
        ref={log}
        role="log"
        aria-label={`Conversation with ${agent.name}`}
        aria-busy={view.streaming || view.restoring}
        tabIndex={0}
        onScroll={(event) => {
          const element = event.currentTarget
          nearBottom.current = element.scrollHeight - element.scrollTop - element.clientHeight < 48
        }}
      >
        {items.length === 0 && !view.restoring && (
          <p class="chat-intro">
            Ask {agent.name} a question about the data in {context.deployment.name}. Answers show the queries they ran.
          </p>
        )}
        <ol class="chat-messages">{items}</ol>
      </div>
      <form
        class="composer"
        onSubmit={(event) => {
          event.preventDefault()
          send()
        }}
      >
        <label for={inputId} class="sr-only">
          Ask a question about your data
        </label>
        <textarea
          id={inputId}
          rows={2}
          value={input}
          placeholder="Ask a question about your data"
          onInput={(event) => setInput(event.currentTarget.value)}
          onKeyDown={(event) => {
            if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
              event.preventDefault()
              send()
            }
          }}
        />
        <div class="composer-actions">
          {view.streaming && (
            <button type="button" class="button-stop" onClick={() => void controller.stop()} disabled={!view.canStop}>
              Stop
            </button>
          )}
          <button type="submit" class="button-primary" disabled={view.streaming || view.restoring || input.trim() === ''}>
            Send
          </button>
        </div>
      </form>
    </div>
  )
}

function notice(entry: ChatNotice) {
  return (
    <li class={`msg msg-notice msg-${entry.kind}`} key={`notice-${entry.id}`} role={entry.kind === 'error' ? 'alert' : undefined}>
      {entry.text}
    </li>
  )
}
