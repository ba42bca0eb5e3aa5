/** A route as the app lists it (`app.routes`). */
export interface ListedRoute {
  method: string
  path: string
  hooks?: { detail?: { hide?: boolean } }
}

const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE'])

/** The pattern of a route path: `:name` is one segment, `:name?` an optional one, `*` the rest; a trailing `/` is optional. */
function patternOf(path: string): RegExp {
  let source = ''
  for (const segment of path.split('/').slice(1)) {
    if (segment === '*') source += '(?:/.*)?'
    else if (segment.startsWith(':') && segment.endsWith('?')) source += '(?:/[^/]+)?'
    else if (segment.startsWith(':')) source += '/[^/]+'
    else source += `/${segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`
  }
  return new RegExp(`^${source}/?$`)
}

/**
 * The methods an address answers, for a request the router did not match: a known address asked with another
 * method is 405 with `Allow` (RFC 9110), not "no such route". Built from the app's routes at the first such
 * request; only refused requests pay for it.
 */
export function createRouteMethods(routes: () => readonly ListedRoute[]) {
  let index: Array<{ pattern: RegExp; methods: Set<string> }> | undefined
  const build = () => {
    const byPath = new Map<string, Set<string>>()
    for (const route of routes()) {
      // A WebSocket is opened with a GET (its upgrade).
      const method = route.method === 'WS' ? 'GET' : route.method
      // Hidden routes (removed operations that answer 404, the socket's plain GET) are no method to offer.
      if (!METHODS.has(method) || route.hooks?.detail?.hide) continue
      const methods = byPath.get(route.path) ?? new Set<string>()
      methods.add(method)
      // The framework answers HEAD wherever it answers GET.
      if (route.method === 'GET') methods.add('HEAD')
      byPath.set(route.path, methods)
    }
    return [...byPath].map(([path, methods]) => ({ pattern: patternOf(path), methods }))
  }
  return {
    /** The methods `pathname` answers, in a stable order; empty when no route has that address. */
    allowed(pathname: string): string[] {
      index ??= build()
      const allowed = new Set<string>()
      for (const { pattern, methods } of index)
        if (pattern.test(pathname)) for (const method of methods) allowed.add(method)
      return ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'].filter((method) => allowed.has(method))
    },
  }
}
