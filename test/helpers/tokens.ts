import { SignJWT, type JWTPayload } from 'jose'

/** Signs an HS256 service token the way a customer's backend would. */
export async function serviceToken(
  secret: string,
  claims: JWTPayload & { externalId?: unknown; scope?: unknown; deploymentId?: number },
  options: { expiresIn?: string | number; notBefore?: string | number; issuedAt?: number } = {},
): Promise<string> {
  let jwt = new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setIssuedAt(options.issuedAt)
  jwt = jwt.setExpirationTime(options.expiresIn ?? '1h')
  if (options.notBefore !== undefined) jwt = jwt.setNotBefore(options.notBefore)
  return jwt.sign(new TextEncoder().encode(secret))
}
