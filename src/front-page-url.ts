/**
 * The front page's address as a browser on this machine reaches it: `http://localhost:4000/` when listening on every
 * address, else the address listened on (an IPv6 one in brackets).
 */
export function frontPageUrl(host: string, port: number): string {
  const name = host === '0.0.0.0' || host === '::' ? 'localhost' : host.includes(':') ? `[${host}]` : host
  return `http://${name}:${port}/`
}
