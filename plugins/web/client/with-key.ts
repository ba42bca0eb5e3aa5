import { pageFetch, PlatformApiError } from './api'

/** A request with the pasted key. The key lives only in this tab's memory: never stored, never put in a URL. */
export async function withKey<T>(
  key: string,
  path: string,
  init: { method?: string; body?: unknown } = {},
): Promise<T> {
  const response = await pageFetch(path, {
    method: init.method ?? 'GET',
    headers: {
      authorization: `Api-Key ${key}`,
      ...(init.body !== undefined && { 'content-type': 'application/json' }),
    },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
    credentials: 'omit',
    cache: 'no-store',
  })
  const body = (await response.json().catch(() => ({}))) as { error?: string; code?: string }
  if (!response.ok)
    throw new PlatformApiError(response.status, body.code ?? 'HTTP_ERROR', body.error ?? `HTTP ${response.status}`)
  return body as T
}
