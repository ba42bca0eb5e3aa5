import type { ComponentChildren } from 'preact'
import { useEffect, useMemo, useRef, useState } from 'preact/hooks'
import { problems } from './api'
import { ChatController, type ChatNotice, type ChatView } from './chat-controller'
import { queriesOf, turnsOf } from './chat-steps'
import { AnswerItem, QuestionItem, StepsSummary } from './chat-turn'
import type { EmbedSession, ReadySession } from './embed-session'
import { PinAnswer } from './pin-answer'

/**
 * The chat: the thread as a live log (deltas as they arrive, tool calls with their SQL and results, the final
 * answer, error lines), and a composer with Send and Stop. Enter sends, Shift+Enter starts a new line.
 */
export function ChatPanel({
  session,
  ready,
  surface,
}: {
  session: EmbedSession
  ready: ReadySession
  surface: 'chat' | 'dashboard'
}) {
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
  const inputId = `${surface}-chat-input`

  useEffect(() => {
    if (!controller) return
    setView(controller.view)
    controller.onChange(() => setView(controller.view))
    void controller.restore()
    return () => controller.dispose()
  }, [controller])

  const follow = useFollowedLog(view, controller)

  if (!agent || !controller || !view) return <p class="chat-empty">{problems.noAgent.detail}</p>

  const ask = (question: string) => {
    const text = question.trim()
    if (!text || view.streaming || view.restoring) return
    setInput('')
    follow.resume()
    // A question the thread did not take (refused, or the service out of reach) comes back to the box, unless
    // something else was typed meanwhile: never lost.
    void controller.send(text).then((taken) => {
      if (!taken) setInput((current) => (current === '' ? question : current))
    })
  }
  const send = () => ask(input)

  const items = logItems(view, controller, ready, session)
  const answering = view.streaming && !view.restoring

  return (
    <div class="chat" data-surface={surface}>
      <div
        class="chat-log"
        ref={follow.log}
        role="log"
        aria-label={`Conversation with ${agent.name}`}
        aria-live="polite"
        aria-busy={view.streaming || view.restoring}
        tabIndex={0}
        onScroll={follow.onScroll}
      >
        {items.length === 0 && !view.restoring && (
          <div class="chat-intro">
            <p>
              Ask {agent.name} a question about the data in {context.deployment.name}. Answers show the queries they
              ran.
            </p>
            {context.starterQuestions.length > 0 && (
              <ul class="starters" aria-label="Suggested questions">
                {context.starterQuestions.map((question) => (
                  <li key={question}>
                    <button type="button" class="starter" onClick={() => ask(question)}>
                      {question}
                    </button>
                  </li>
                ))}
              </ul>
            )}
          </div>
        )}
        <ol class="chat-messages" ref={follow.messagesList}>
          {items}
        </ol>
      </div>
      {follow.unseen && (
        <button type="button" class="new-messages" onClick={follow.showNew}>
          New messages ↓
        </button>
      )}
      <p class="sr-only" role="status">
        {answering ? `${agent.name} is answering…` : ''}
      </p>
      <Composer
        inputId={inputId}
        input={input}
        onInput={setInput}
        send={send}
        view={view}
        stop={() => void controller.stop()}
      />
    </div>
  )
}

function notice(entry: ChatNotice) {
  return (
    <li
      class={`msg msg-notice msg-${entry.kind}`}
      key={`notice-${entry.id}`}
      role={entry.kind === 'error' ? 'alert' : undefined}
    >
      {entry.text}
    </li>
  )
}

/**
 * Follows the log as the answer grows (also when a chart or table below it changes height), unless the reader
 * scrolled up to read something earlier: then `unseen` says new messages came, and `showNew` follows again.
 */
function useFollowedLog(view: ChatView | undefined, controller: ChatController | null | undefined) {
  const log = useRef<HTMLDivElement>(null)
  const messagesList = useRef<HTMLOListElement>(null)
  const following = useRef(true)
  const lastTop = useRef(0)
  const lastHeight = useRef(0)
  const [unseen, setUnseen] = useState(false)
  const toBottom = () => {
    const element = log.current
    if (element) element.scrollTop = element.scrollHeight
  }
  useEffect(() => {
    if (following.current) toBottom()
    else if (view?.streaming || view?.messages.length) setUnseen(true)
  }, [view])
  useEffect(() => {
    const list = messagesList.current
    if (!list) return
    const observer = new ResizeObserver(() => following.current && toBottom())
    observer.observe(list)
    return () => observer.disconnect()
  }, [controller])

  const resume = () => {
    following.current = true
    setUnseen(false)
  }
  /** The new messages shown: the log at its bottom, followed again. */
  const showNew = () => {
    resume()
    toBottom()
  }
  const onScroll = (event: { currentTarget: HTMLDivElement }) => {
    const element = event.currentTarget
    const atBottom = element.scrollHeight - element.scrollTop - element.clientHeight < 48
    // Only the reader scrolls up (the page itself only ever scrolls down, and content may grow between its
    // scroll and this event), so moving up stops following and reaching the bottom resumes it.
    if (atBottom) {
      following.current = true
      setUnseen(false)
    } else if (element.scrollTop < lastTop.current - 2 && element.scrollHeight >= lastHeight.current)
      following.current = false
    // (A move up while the content shrank is the browser clamping the position, as when a chart replaces a
    // long table: not the reader.)
    lastTop.current = element.scrollTop
    lastHeight.current = element.scrollHeight
  }
  return { log, messagesList, unseen, resume, showNew, onScroll }
}

/**
 * The log's items in order: each turn's question, a summary of its steps, and its answer (with Add to dashboard
 * for a creator, when it drew from a query), with the notices placed where they happened.
 */
function logItems(view: ChatView, controller: ChatController, ready: ReadySession, session: EmbedSession) {
  const { context, token } = ready
  const items: ComponentChildren[] = []
  const notices = [...view.notices]
  const turns = turnsOf(view.messages)
  const latestAnswer = [...turns].reverse().find((turn) => turn.answer)?.answer
  for (const turn of turns) {
    const first = turn.question ?? turn.steps[0] ?? turn.answer
    while (first && notices.length && notices[0].afterSort < first.sort) items.push(notice(notices.shift()!))
    if (turn.question) items.push(<QuestionItem key={turn.question.id} message={turn.question} user={context.user} />)
    if (turn.steps.some((step) => step.toolCall || step.content.trim() !== '')) {
      const known = queriesOf(turn.steps)
        .map((query) => view.toolMs[query.id])
        .filter((ms) => ms !== undefined)
      items.push(
        <StepsSummary
          key={`steps-${first?.id}`}
          steps={turn.steps}
          elapsedMs={known.length ? known.reduce((sum, ms) => sum + ms, 0) : undefined}
        />,
      )
    }
    if (turn.answer) {
      // A creator may keep an answer that drew from a query as a dashboard widget.
      const pinnable =
        context.creator && controller.thread && queriesOf(turn.steps).some((query) => query.result && !query.error)
      items.push(
        <AnswerItem
          key={turn.answer.id}
          answer={turn.answer}
          steps={turn.steps}
          isLatest={turn.answer === latestAnswer}
          actions={
            pinnable && (
              <PinAnswer
                token={token}
                chatId={controller.thread!}
                messageId={turn.answer.id}
                onSessionError={(error) => session.report(error)}
              />
            )
          }
        />,
      )
    }
  }
  for (const rest of notices) items.push(notice(rest))
  return items
}

/** The question box with Send, and Stop while an answer streams. Enter sends, Shift+Enter starts a new line. */
function Composer(props: {
  inputId: string
  input: string
  onInput: (input: string) => void
  send: () => void
  view: ChatView
  stop: () => void
}) {
  return (
    <form
      class="composer"
      onSubmit={(event) => {
        event.preventDefault()
        props.send()
      }}
    >
      <label for={props.inputId} class="sr-only">
        Ask a question about your data
      </label>
      <textarea
        id={props.inputId}
        rows={2}
        value={props.input}
        placeholder="Ask a question about your data"
        onInput={(event) => props.onInput(event.currentTarget.value)}
        onKeyDown={(event) => {
          if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
            event.preventDefault()
            props.send()
          }
        }}
      />
      <div class="composer-actions">
        {props.view.streaming && (
          <button type="button" class="button-stop" onClick={props.stop} disabled={!props.view.canStop}>
            Stop
          </button>
        )}
        <button
          type="submit"
          class="button-primary"
          disabled={props.view.streaming || props.view.restoring || props.input.trim() === ''}
        >
          Send
        </button>
      </div>
    </form>
  )
}
