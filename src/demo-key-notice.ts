import type { LogFormat } from '../lib/config'

const HEADLINE = 'Demo admin API key (shown once, stored only as a hash)'

/**
 * What the server prints once when it seeds the demo account: the demo admin key and a request to try it. In a
 * terminal, a block of plain lines; where stdout holds JSON logs (`LOG_FORMAT=json`, or not a terminal), one JSON log
 * line of level info, whatever `LOG_LEVEL` is, so every line of stdout parses and the key is printed all the same.
 * Either way `Demo admin API key ...: <key>` is in it, the key followed by a space or the line's end.
 */
export function demoKeyNotice(key: string, port: number | string, format: LogFormat, now = new Date()): string {
  const tryIt = `curl -H "Authorization: Api-Key ${key}" http://localhost:${port}/api/v1/deployments/1/meta`
  if (format === 'pretty') return `\n${HEADLINE}: ${key}\nTry: ${tryIt}\n\n`
  return `${JSON.stringify({ time: now.toISOString(), level: 'info', msg: `${HEADLINE}: ${key} (try: ${tryIt})` })}\n`
}
