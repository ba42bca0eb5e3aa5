import { t } from 'elysia'
import { ImageAttachment, ThreadMessage } from '../../db/repositories/threads/thread-message'
import { SessionSettings } from '../auth/session-settings'

export { ImageAttachment, ThreadMessage, ToolCall } from '../../db/repositories/threads/thread-message'

export const MESSAGE_ID_PATTERN = '^\\d{13,}-message$'

/** The chat request body: every field optional, and the body itself may be left out. */
export const ChatRequest = t.Object(
  {
    activeBranchName: t.Optional(t.String({ minLength: 1, maxLength: 200 })),
    chatId: t.Optional(t.String({ minLength: 1, maxLength: 200 })),
    images: t.Optional(t.Array(ImageAttachment, { maxItems: 10 })),
    input: t.Optional(t.String({ maxLength: 100_000 })),
    isDefaultBranch: t.Optional(t.Boolean()),
    messageId: t.Optional(
      t.String({
        pattern: MESSAGE_ID_PATTERN,
        maxLength: 100,
        description: 'A millisecond timestamp of 13 or more digits, then -message, such as 1767225600000-message.',
      }),
    ),
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

/** Every line of the chat stream is one of these JSON objects. One schema for emitters, docs and tests. */
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
