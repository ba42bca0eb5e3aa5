import { BadRequestError } from '../../lib/errors'

export type Credential =
  | { scheme: 'apiKey'; value: string }
  | { scheme: 'embedToken'; value: string }
  | { scheme: 'serviceToken'; value: string }

const AUTHORIZATION = /^(Api-Key|Embed-Token)[ \t]+([\x21-\x7e]{1,4096})[ \t]*$/i
const TOKEN = /^[\x21-\x7e]{1,8192}$/

/**
 * Reads the credential of a request. Returns `undefined` when none is sent; a header that is present but not of a
 * known form is a malformed credential (400), not a wrong one (401).
 */
export function readCredential(headers: Record<string, string | undefined>): Credential | undefined {
  const authorization = headers.authorization
  if (authorization !== undefined && authorization.trim() !== '') {
    const match = AUTHORIZATION.exec(authorization.trim())
    if (!match)
      throw new BadRequestError(
        'Malformed Authorization header: expected "Api-Key <key>" or "Embed-Token <token>"',
        'MALFORMED_CREDENTIAL',
      )
    return { scheme: match[1].toLowerCase() === 'api-key' ? 'apiKey' : 'embedToken', value: match[2] }
  }
  const serviceToken = headers['x-service-auth-token']
  if (serviceToken !== undefined && serviceToken.trim() !== '') {
    if (!TOKEN.test(serviceToken.trim()))
      throw new BadRequestError('Malformed X-Service-Auth-Token header', 'MALFORMED_CREDENTIAL')
    return { scheme: 'serviceToken', value: serviceToken.trim() }
  }
  return undefined
}
