/**
 * JavaScriptCore's heap tuning for a server holding many long-lived streams. By default JSC lets the heap grow to
 * about three times what survived its last full collection before collecting again; with ten thousand open runs,
 * the objects of each line (a timer, a few promises) live a second, survive the young-generation collections, and
 * pile up as old garbage until that limit: most of the process's memory was garbage waiting for a full collection.
 * Halving the allowed growth keeps peak memory about a fifth lower at a throughput cost within the noise.
 *
 * JSC reads its options from the environment when the process starts, so `main.ts` re-executes the process (same
 * pid, same arguments, before anything else is loaded: 10 to 50 ms) with the option set, unless it is set already:
 * an operator's own value always wins (`BUN_JSC_heapGrowthMaxIncrease=2` restores JSC's default).
 */
export const HEAP_GROWTH_OPTION = 'BUN_JSC_heapGrowthMaxIncrease'
export const HEAP_GROWTH_VALUE = '1'

/** The command that runs this process again: the binary with its arguments, or bun with its flags and the script. */
function ownCommand(): string[] {
  // A compiled binary's script is embedded (`/$bunfs/...`): its own arguments follow the executable.
  if (Bun.main.startsWith('/$bunfs/')) return [process.argv0, ...process.argv.slice(2)]
  return [process.argv0, ...process.execArgv, process.argv[1], ...process.argv.slice(2)]
}

/** Whether the command line starts the server: no subcommand (options only) or `serve`. */
function runsServer(argv: string[]): boolean {
  const first = argv[0]
  if (first === undefined) return true
  if (first.startsWith('-'))
    return !argv.some((flag) => ['--help', '-h', '--version', '-v', '--healthcheck'].includes(flag))
  return first === 'serve' && !argv.includes('--help') && !argv.includes('-h')
}

/** Re-executes the process with the heap option when it is missing; returns only when it does not (or cannot). */
export function applyRuntimeTuning(): void {
  if (process.env[HEAP_GROWTH_OPTION] !== undefined) return
  // Watch and hot modes restart the process themselves; only the server lives long enough for the option to matter.
  if (process.execArgv.some((flag) => flag === '--watch' || flag === '--hot') || !runsServer(process.argv.slice(2)))
    return
  if (typeof process.execve !== 'function') return
  try {
    process.execve(process.execPath, ownCommand(), { ...process.env, [HEAP_GROWTH_OPTION]: HEAP_GROWTH_VALUE })
  } catch {
    // Not possible here (a sandbox refusing exec, say): run with JSC's defaults.
  }
}
