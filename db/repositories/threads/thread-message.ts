import { Type as t } from '@sinclair/typebox'
import { named } from '../../../lib/schema-name'

/*
 * A thread's messages as the service stores them and as they go out on the wire (the chat API declares its stream
 * lines from these schemas): declared here, below the chat area, because the thread store reads and returns them.
 */

/** An image sent with a chat message: its MIME type, its base64 data and an optional file name. */
export const ImageAttachment = t.Object(
  {
    mimeType: t.String({ minLength: 1, maxLength: 200 }),
    data: t.String({ minLength: 1 }),
    name: t.Optional(t.String({ maxLength: 500 })),
  },
  { additionalProperties: false },
)
export type ImageAttachment = typeof ImageAttachment.static

/** A tool the agent called: its name, and its input and result as JSON-encoded strings. */
export const ToolCall = t.Object(
  {
    name: t.String(),
    input: t.String(),
    result: t.Optional(t.String()),
  },
  named('ToolCall'),
)
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
