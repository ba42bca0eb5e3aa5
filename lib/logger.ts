import type { LogFormat, LogLevel } from './config'

/** Structured logs on stdout, one entry a line: JSON for collectors, or one readable line for a terminal. */
export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void
  info(message: string, fields?: Record<string, unknown>): void
  warn(message: string, fields?: Record<string, unknown>): void
  error(message: string, fields?: Record<string, unknown>): void
  child(fields: Record<string, unknown>): Logger
}

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 }

/** The format to use: the configured one, else pretty on a terminal and JSON when the output goes to a pipe or file. */
export function resolveLogFormat(
  configured: LogFormat | undefined,
  isTerminal = process.stdout.isTTY === true,
): LogFormat {
  return configured ?? (isTerminal ? 'pretty' : 'json')
}

/** Creates a logger writing to `write` (stdout by default); entries below `level` are dropped. */
export function createLogger(
  level: LogLevel | 'silent' = 'info',
  base: Record<string, unknown> = {},
  write: (line: string) => void = (line) => process.stdout.write(line),
  format: LogFormat = 'json',
): Logger {
  const threshold = level === 'silent' ? Number.POSITIVE_INFINITY : RANK[level]
  const render = format === 'pretty' ? prettyLine : jsonLine
  const emit = (entryLevel: LogLevel, message: string, fields?: Record<string, unknown>) => {
    if (RANK[entryLevel] < threshold) return
    write(render(new Date(), entryLevel, message, { ...base, ...fields }))
  }
  return {
    debug: (message, fields) => emit('debug', message, fields),
    info: (message, fields) => emit('info', message, fields),
    warn: (message, fields) => emit('warn', message, fields),
    error: (message, fields) => emit('error', message, fields),
    child: (fields) => createLogger(level, { ...base, ...fields }, write, format),
  }
}

function jsonLine(time: Date, level: LogLevel, message: string, fields: Record<string, unknown>): string {
  return `${JSON.stringify({ time: time.toISOString(), level, msg: message, ...fields }, errorReplacer)}\n`
}

const LEVEL_LABEL: Record<LogLevel, string> = { debug: 'DEBUG', info: 'INFO ', warn: 'WARN ', error: 'ERROR' }

/** `12:00:00.123 INFO  listening url=http://localhost:4000 db=./data/service.db`, an error's stack on the lines below. */
export function prettyLine(time: Date, level: LogLevel, message: string, fields: Record<string, unknown>): string {
  let line = `${time.toISOString().slice(11, 23)} ${LEVEL_LABEL[level]} ${message}`
  let stacks = ''
  for (const [name, value] of Object.entries(fields)) {
    if (value === undefined) continue
    if (value instanceof Error) {
      line += ` ${name}=${quoted(`${value.name}: ${value.message}`)}`
      if (value.stack) stacks += `\n  ${value.stack.split('\n').slice(1).join('\n  ').trim()}`
    } else line += ` ${name}=${typeof value === 'string' ? quoted(value) : JSON.stringify(value, errorReplacer)}`
  }
  return `${line}${stacks}\n`
}

/** Bare when unambiguous, JSON-quoted when the value has spaces, quotes or equals signs (or is empty). */
function quoted(text: string): string {
  return text === '' || /[\s"=]/.test(text) ? JSON.stringify(text) : text
}

function errorReplacer(_key: string, value: unknown): unknown {
  if (value instanceof Error) return { name: value.name, message: value.message, stack: value.stack }
  return value
}
