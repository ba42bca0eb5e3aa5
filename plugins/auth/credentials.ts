import { UnauthorizedError } from '../../lib/errors'

export type Credential =
  | { scheme: 'apiKey'; value: string }
  | { scheme: 'embedToken'; value: string }
  | { scheme: 'serviceToken'; value: string }

const AUTHORIZATION = /^(Api-Key|Embed-Token)[ \t]+([\x21-\x7e]{1,4096})[ \t]*$/i
const TOKEN = /^[\x21-\x7e]{1,8192}$/

/**
 * Reads the credential of a request. Returns `undefined` when none is sent; a header that is present but not of a
 * known form is a bad credential: 401 as a wrong one, with a code and message of its own saying what form is expected.
 */
export function readCredential(headers: Record<string, string | undefined>): Credential | undefined {
  const authorization = headers.authorization
  if (authorization !== undefined && authorization.trim() !== '') {
    const match = AUTHORIZATION.exec(authorization.trim())
    if (!match)
      throw new UnauthorizedError(
        'Malformed Authorization header: expected "Api-Key <key>" or "Embed-Token <token>"',
        'MALFORMED_CREDENTIAL',
      )
    return { scheme: match[1].toLowerCase() === 'api-key' ? 'apiKey' : 'embedToken', value: match[2] }
  }
  const serviceToken = headers['x-service-auth-token']
  if (serviceToken !== undefined && serviceToken.trim() !== '') {
    if (!TOKEN.test(serviceToken.trim()))
      throw new UnauthorizedError('Malformed X-Service-Auth-Token header', 'MALFORMED_CREDENTIAL')
    return { scheme: 'serviceToken', value: serviceToken.trim() }
  }
  return undefined
}
