/** A start that cannot go on for a reason the operator can fix (a taken port): shown without a stack. */
export class StartupError extends Error {}

/**
 * Runs a start step that opens or writes a file the operator named (`setting`: `DB_PATH`, `--db`,
 * `DEMO_DATA_PATH`): a file-system or SQLite failure becomes a `StartupError` naming the setting and the path,
 * instead of a stack trace.
 */
export async function withNamedFile<T>(setting: string, path: string, step: () => T | Promise<T>): Promise<T> {
  try {
    return await step()
  } catch (error) {
    if (!isFileError(error)) throw error
    throw new StartupError(`${setting} ${path}: ${(error as Error).message}`)
  }
}

function isFileError(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code
  return (
    (typeof code === 'string' && /^(E[A-Z]+|SQLITE_[A-Z_]+)$/.test(code)) ||
    (error as Error | undefined)?.name === 'SQLiteError'
  )
}
