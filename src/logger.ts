import type { LogLevel } from './config'

/** Structured JSON logs on stdout, one object a line. */
export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void
  info(message: string, fields?: Record<string, unknown>): void
  warn(message: string, fields?: Record<string, unknown>): void
  error(message: string, fields?: Record<string, unknown>): void
  child(fields: Record<string, unknown>): Logger
}

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 }

/** Creates a logger writing to `write` (stdout by default); entries below `level` are dropped. */
export function createLogger(
  level: LogLevel | 'silent' = 'info',
  base: Record<string, unknown> = {},
  write: (line: string) => void = (line) => process.stdout.write(line),
): Logger {
  const threshold = level === 'silent' ? Number.POSITIVE_INFINITY : RANK[level]
  const emit = (entryLevel: LogLevel, message: string, fields?: Record<string, unknown>) => {
    if (RANK[entryLevel] < threshold) return
    const entry = { time: new Date().toISOString(), level: entryLevel, msg: message, ...base, ...fields }
    write(`${JSON.stringify(entry, errorReplacer)}\n`)
  }
  return {
    debug: (message, fields) => emit('debug', message, fields),
    info: (message, fields) => emit('info', message, fields),
    warn: (message, fields) => emit('warn', message, fields),
    error: (message, fields) => emit('error', message, fields),
    child: (fields) => createLogger(level, { ...base, ...fields }, write),
  }
}

function errorReplacer(_key: string, value: unknown): unknown {
  if (value instanceof Error) return { name: value.name, message: value.message, stack: value.stack }
  return value
}
