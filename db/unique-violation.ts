/**
 * Whether `error` is a unique (or primary key) violation, on either dialect, whether drizzle wrapped it
 * (`DrizzleQueryError` with the driver's error as its `cause`) or not. Lets a domain module turn "already exists"
 * into its own 409 without knowing which database answered.
 */
export function isUniqueViolation(error: unknown): boolean {
  let current = error
  for (let depth = 0; depth < 5 && current !== null && typeof current === 'object'; depth++) {
    const { code, errno } = current as { code?: unknown; errno?: unknown }
    // bun:sqlite names the extended result code; Bun's Postgres client puts SQLSTATE in `errno`.
    if (code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY') return true
    if (errno === '23505' || code === '23505') return true
    current = (current as { cause?: unknown }).cause
  }
  return false
}
