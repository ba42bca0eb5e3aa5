/** Whether this run is CI's (`CI=true`): there a test never skips for want of a program, it fails. */
export const inCI = process.env.CI === 'true'

const said = new Set<string>()

/** Says loudly, once per run and subject, which tests were skipped and why. */
export function warnSkipped(what: string, why = 'a program it needs is not installed on this machine'): void {
  if (said.has(what)) return
  said.add(what)
  const line = '!'.repeat(100)
  console.warn(`\n${line}\n!!! SKIPPED: ${what}: ${why}.\n!!! CI always runs them.\n${line}\n`)
}

/**
 * Whether a program the slow tests need (a database server, a browser, nginx) is installed. When it is not, the
 * tests that need it are skipped here, saying so, and in CI (`CI=true`) this throws: a CI run must never pass without
 * running them.
 */
export function programAvailable(program: string, present: boolean, install: string): boolean {
  if (present) return true
  const why = `${program} is not installed (${install})`
  if (inCI) throw new Error(`${why}, and CI=true: the tests that need it must run in CI, never skip`)
  warnSkipped(`the tests that need ${program}`, why)
  return false
}
