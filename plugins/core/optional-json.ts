/**
 * Body parser for routes whose JSON body is optional: an empty body is no body, anything else must be valid JSON.
 * (Elysia's default parser turns malformed JSON into "no body" when the schema is optional; that would hide a
 * client's mistake.) A parse failure surfaces as Elysia's PARSE error, answered 400 by the core error handler.
 */
export async function parseOptionalJson({ request }: { request: Request }): Promise<unknown> {
  const text = await request.text()
  if (text.trim() === '') return undefined
  return JSON.parse(text)
}
