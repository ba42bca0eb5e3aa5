import type { WebAssets } from './bundle-web-assets'

export type PageKind = 'dashboard' | 'chat' | 'home' | 'readme'

export const ASSET_PREFIX = '/embed/assets'

/**
 * The pages' Content-Security-Policy. Scripts and styles come only from this origin (the hashed bundle; no inline
 * code at all, so no nonce is needed), requests only to this origin, images from this origin and any http(s) URL
 * (the user's `picture` is loaded by the browser from wherever the host app keeps it). `frame-ancestors *`: being
 * framed by the customer's app is the point, and access rests on the session id, which only their backend can mint.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' https: http:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  'frame-ancestors *',
].join('; ')

/** The front door's policy: the embed pages' one, plus frames of this origin for its embed preview. */
export const HOME_CONTENT_SECURITY_POLICY = CONTENT_SECURITY_POLICY.replace(
  "connect-src 'self'",
  "connect-src 'self'; frame-src 'self'",
).replace('frame-ancestors *', "frame-ancestors 'none'")

/** Headers of every page: never cached (the URL holds a one-time session id), never sending a Referer. */
export const PAGE_HEADERS: Record<string, string> = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'permissions-policy': 'camera=(), microphone=(), geolocation=(), payment=()',
}

/** The front door's headers: its own policy (it takes an API key, so it is never framed). */
export const HOME_HEADERS: Record<string, string> = {
  ...PAGE_HEADERS,
  'content-security-policy': HOME_CONTENT_SECURITY_POLICY,
}

const TITLES: Record<PageKind, string> = {
  dashboard: 'Dashboard',
  chat: 'AI chat',
  home: 'Analytics chat service',
  readme: 'README',
}

/** The pages' icon: a chat bubble. Without one, browsers ask for `/favicon.ico` and log the 404. */
export const FAVICON = {
  name: 'favicon.svg',
  contentType: 'image/svg+xml',
  body: '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><path fill="#1d4ed8" d="M4 5.5A2.5 2.5 0 0 1 6.5 3h11A2.5 2.5 0 0 1 20 5.5v8a2.5 2.5 0 0 1-2.5 2.5H10l-4.5 4v-4A2.5 2.5 0 0 1 4 13.5z"/></svg>',
}

/**
 * The HTML of a page: static, the same for every session. The script reads the session id and the dashboard's
 * public id from the address, so nothing from the request is ever written into the markup.
 */
export function renderPage(kind: PageKind, assets: WebAssets, version = ''): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${TITLES[kind]}</title>
<link rel="icon" href="${ASSET_PREFIX}/${FAVICON.name}" type="image/svg+xml">
<link rel="stylesheet" href="${ASSET_PREFIX}/${assets.style.name}" integrity="${assets.style.integrity}">
<script type="module" src="${ASSET_PREFIX}/${assets.script.name}" integrity="${assets.script.integrity}"></script>
</head>
<body data-page="${kind}"${version ? ` data-version="${version.replace(/[^0-9A-Za-z.+-]/g, '')}"` : ''}>
<div id="app"><p class="page-status" role="status">Loading…</p></div>
<noscript><p class="page-status">This page needs JavaScript.</p></noscript>
</body>
</html>
`
}
