/**
 * A minimal HTTP/1.1 client over a raw TCP socket for the rejoin scenario's thousand joiners: one POST, then the
 * chunked body handed over as it arrives. `fetch` and its body stream cost the client far more per chunk, and on
 * a small machine the client's own delays would be counted as the server's delivery lag.
 */
export interface RawResponse {
  status: number
}

const CR = 13
const LF = 10

/**
 * Sends `body` to `url` and calls `onBody(bytes, receivedAt)` for each piece of the (chunked) response body.
 * Resolves with the status once the response is complete; rejects on a network failure or a malformed response.
 */
export function rawPost(
  url: string,
  headers: Record<string, string>,
  body: string,
  onBody: (bytes: Uint8Array, receivedAt: number) => void,
  now: () => number,
): Promise<RawResponse> {
  const target = new URL(url)
  const payload = new TextEncoder().encode(body)
  const head =
    `POST ${target.pathname}${target.search} HTTP/1.1\r\nHost: ${target.host}\r\nConnection: close\r\n` +
    Object.entries(headers)
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('') +
    `Content-Length: ${payload.byteLength}\r\n\r\n`
  return new Promise<RawResponse>((resolve, reject) => {
    let header = new Uint8Array(0)
    let status = 0
    let inBody = false
    // Chunked decoding: the hex size line, then that many data bytes, then CRLF; a zero size ends the body.
    let sizeText = ''
    let remaining = -1
    let skipCrlf = 0
    let done = false
    const finish = (error?: Error) => {
      if (done) return
      done = true
      if (error) reject(error)
      else resolve({ status })
    }
    const decode = (bytes: Uint8Array, at: number) => {
      let index = 0
      while (index < bytes.length && !done) {
        if (skipCrlf > 0) {
          index++
          skipCrlf--
        } else if (remaining > 0) {
          const take = Math.min(remaining, bytes.length - index)
          onBody(bytes.subarray(index, index + take), at)
          index += take
          remaining -= take
          if (remaining === 0) skipCrlf = 2
        } else {
          const byte = bytes[index++]
          if (byte === CR) continue
          if (byte !== LF) {
            sizeText += String.fromCharCode(byte)
            continue
          }
          remaining = Number.parseInt(sizeText.split(';')[0], 16)
          sizeText = ''
          if (Number.isNaN(remaining)) return finish(new Error('malformed chunked body'))
          if (remaining === 0) return finish()
        }
      }
    }
    Bun.connect({
      hostname: target.hostname,
      port: Number(target.port),
      socket: {
        open(socket) {
          socket.write(head)
          socket.write(payload)
        },
        data(_socket, data) {
          const at = now()
          if (inBody) return decode(data, at)
          // The head may arrive in pieces: keep its bytes until the blank line, then decode the rest as body.
          const joined = new Uint8Array(header.byteLength + data.byteLength)
          joined.set(header)
          joined.set(data, header.byteLength)
          header = joined
          const end = Buffer.from(joined.buffer, joined.byteOffset, joined.byteLength).indexOf('\r\n\r\n')
          if (end < 0) return
          const text = new TextDecoder().decode(joined.subarray(0, end))
          status = Number(text.slice(9, 12))
          if (!/transfer-encoding:\s*chunked/i.test(text))
            return finish(new Error(`HTTP ${status} without a chunked body`))
          inBody = true
          decode(joined.subarray(end + 4), at)
        },
        close() {
          finish(done ? undefined : new Error('connection closed before the end of the response'))
        },
        error(_socket, error) {
          finish(error)
        },
      },
    }).catch((error: Error) => finish(error))
  })
}
