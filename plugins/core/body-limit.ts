import { PayloadTooLargeError } from '../../lib/errors'

/**
 * The request body limit, answered with the JSON error body like every other error. Bun's own limit
 * (`maxRequestBodySize`) cuts the request before the app sees it and answers 413 with an empty body, so the server
 * sets Bun's limit far above this one (see `src/server.ts`) and this check answers first:
 * - a declared `Content-Length` over the limit is refused before any of the body is read;
 * - a chunked body (no `Content-Length`) is counted as it is read, and reading stops at the limit, so an endless
 *   upload never holds more than the limit in memory.
 */
export function createBodyLimit(maxBytes: number) {
  const exceeded = new WeakSet<Request>()

  return {
    /** The request to go on with: `request` itself, or a copy whose body stops at the limit. Throws the 413. */
    guard(request: Request): Request {
      const declared = request.headers.get('content-length')
      if (declared !== null) {
        if (Number(declared) > maxBytes) throw new PayloadTooLargeError(maxBytes)
        return request
      }
      if (request.headers.get('transfer-encoding') === null || request.body === null) return request
      let received = 0
      const counted = request.body.pipeThrough(
        new TransformStream<Uint8Array, Uint8Array>({
          transform(chunk, controller) {
            received += chunk.byteLength
            if (received <= maxBytes) return controller.enqueue(chunk)
            exceeded.add(limited)
            controller.error(new PayloadTooLargeError(maxBytes))
          },
        }),
      )
      const limited: Request = new Request(request, { body: counted, duplex: 'half' } as RequestInit)
      return limited
    },

    /**
     * True once reading the body of `request` (a request `guard` returned) passed the limit. Parsers may swallow
     * the stream's error (optional bodies become "no body"), so the answer is decided by this, not by the error.
     */
    exceeded(request: Request): boolean {
      return exceeded.has(request)
    },
  }
}
