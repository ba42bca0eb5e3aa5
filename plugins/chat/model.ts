import { t } from 'elysia'
import { SessionSettings } from '../embed/session-settings'

export const MESSAGE_ID_PATTERN = '^\\d{13,}-message$'

/** Spec 2.2. */
export const ImageAttachment = t.Object(
  {
    mimeType: t.String({ minLength: 1, maxLength: 200 }),
    data: t.String({ minLength: 1 }),
    name: t.Optional(t.String({ maxLength: 500 })),
  },
  { additionalProperties: false },
)
export type ImageAttachment = typeof ImageAttachment.static

/** Spec 2.1: the chat request body (the body itself is optional). */
export const ChatRequest = t.Object(
  {
    activeBranchName: t.Optional(t.String({ minLength: 1, maxLength: 200 })),
    chatId: t.Optional(t.String({ minLength: 1, maxLength: 200 })),
    images: t.Optional(t.Array(ImageAttachment, { maxItems: 10 })),
    input: t.Optional(t.String({ maxLength: 100_000 })),
    isDefaultBranch: t.Optional(t.Boolean()),
    messageId: t.Optional(t.String({ pattern: MESSAGE_ID_PATTERN, maxLength: 100 })),
    sessionSettings: t.Optional(SessionSettings),
  },
  { additionalProperties: false },
)
export type ChatRequest = typeof ChatRequest.static

/**
 * The chat request's free text: an unpaired surrogate in it is stored, and echoed, as U+FFFD. Anywhere else in the
 * request (an `externalId`, a group name, a security context value) it is refused, since stored it would be the same
 * as every other one.
 */
export const CHAT_FREE_TEXT = ['input'] as const

/** Spec 2.5. `input` and `result` are JSON-encoded strings. */
export const ToolCall = t.Object({
  name: t.String(),
  input: t.String(),
  result: t.Optional(t.String()),
})
export type ToolCall = typeof ToolCall.static

const Role = t.Union([t.Literal('user'), t.Literal('assistant')])

/** A message of the thread, as it appears in `__state__` and (for messages) as stream lines. */
export const ThreadMessage = t.Object({
  id: t.String(),
  role: Role,
  content: t.String(),
  isDelta: t.Boolean(),
  isInProcess: t.Boolean(),
  sort: t.Integer({ minimum: 1 }),
  graphPath: t.Optional(t.Array(t.String())),
  thinking: t.Optional(t.String()),
  toolCall: t.Optional(ToolCall),
  images: t.Optional(t.Array(ImageAttachment)),
  /** Set when the run producing this message was cut short (abort, crash, restart). */
  interrupted: t.Optional(t.Literal(true)),
})
export type ThreadMessage = typeof ThreadMessage.static

export const CutoffLine = t.Object({
  id: t.Literal('__cutoff__'),
  sort: t.Literal(0),
  state: t.Object({ chatId: t.String(), isStreaming: t.Boolean() }),
})

export const StateLine = t.Object({
  id: t.Literal('__state__'),
  sort: t.Integer({ minimum: 1 }),
  state: t.Object({ messages: t.Array(ThreadMessage) }),
})

/** A message line of the stream has the shape of a stored message (deltas carry only the new text). */
export const MessageLine = ThreadMessage

export const ErrorLine = t.Object({ error: t.String() }, { additionalProperties: false })

/** Spec 2.4: every line of the chat stream is one of these. One schema for emitters, docs and tests. */
export const StreamLine = t.Union([CutoffLine, StateLine, MessageLine, ErrorLine])
export type StreamLine = typeof StreamLine.static
export type CutoffLine = typeof CutoffLine.static
export type StateLine = typeof StateLine.static
export type MessageLine = typeof MessageLine.static
export type ErrorLine = typeof ErrorLine.static

export const ChatParams = t.Object({
  accountName: t.String(),
  agentId: t.String(),
})

export const AbortRequest = t.Object(
  {
    chatId: t.String({ minLength: 1, maxLength: 200 }),
    sessionSettings: t.Optional(SessionSettings),
  },
  { additionalProperties: false },
)
export type AbortRequest = typeof AbortRequest.static
