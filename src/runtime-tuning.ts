/**
 * Two settings of the runtime for a server holding many long-lived streams and answering many short turns, both read
 * only when the process starts:
 *
 * - JavaScriptCore's heap growth. By default JSC lets the heap grow to about three times what survived its last full
 *   collection before collecting again; with ten thousand open runs, the objects of each line (a timer, a few
 *   promises) live a second, survive the young-generation collections, and pile up as old garbage until that limit:
 *   most of the process's memory was garbage waiting for a full collection. A growth of 0.75 (the heap may reach
 *   1.75 times what survived) holds 10,000 open runs at 340-355 MB instead of 390-406 MB with 1 (twice what survived),
 *   for about 5% more CPU a protocol turn. JSC applies that option on machines with 16 GB of memory or more; below,
 *   it grows by a flat factor (`smallHeapGrowthFactor`, 2 by default), set to the same 1.75.
 * - mimalloc's purge delay. The allocator gives freed memory back to the system (`madvise`) shortly after it is
 *   freed, and a chat turn frees and takes again the same few hundred kilobytes (request, lines, statements): more
 *   than one `madvise` call a turn, and the page faults after them. A second's delay keeps that memory for the next
 *   turns: 15 to 20% less CPU a protocol turn at concurrency 32 than the runtime's default, the same peak memory with
 *   10,000 open runs.
 *
 * So `main.ts` re-executes the process (same pid, same arguments, before anything else is loaded: 10 to 50 ms) with
 * the settings the environment does not have: an operator's own value always wins (`BUN_JSC_heapGrowthMaxIncrease=2`
 * restores Bun's default).
 */
export const HEAP_GROWTH_OPTION = 'BUN_JSC_heapGrowthMaxIncrease'
export const HEAP_GROWTH_VALUE = '0.75'
export const SMALL_HEAP_GROWTH_OPTION = 'BUN_JSC_smallHeapGrowthFactor'
export const SMALL_HEAP_GROWTH_VALUE = '1.75'
export const PURGE_DELAY_OPTION = 'MIMALLOC_PURGE_DELAY'
export const PURGE_DELAY_VALUE = '1000'

/** Every setting, by its environment variable. */
export const RUNTIME_SETTINGS: Readonly<Record<string, string>> = {
  [HEAP_GROWTH_OPTION]: HEAP_GROWTH_VALUE,
  [SMALL_HEAP_GROWTH_OPTION]: SMALL_HEAP_GROWTH_VALUE,
  [PURGE_DELAY_OPTION]: PURGE_DELAY_VALUE,
}

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

/** Re-executes the process with the settings it is missing; returns only when it does not (or cannot). */
export function applyRuntimeTuning(): void {
  const missing = Object.entries(RUNTIME_SETTINGS).filter(([name]) => process.env[name] === undefined)
  if (missing.length === 0) return
  // Watch and hot modes restart the process themselves; only the server lives long enough for the settings to matter.
  if (process.execArgv.some((flag) => flag === '--watch' || flag === '--hot') || !runsServer(process.argv.slice(2)))
    return
  if (typeof process.execve !== 'function') return
  try {
    process.execve(process.execPath, ownCommand(), { ...process.env, ...Object.fromEntries(missing) })
  } catch {
    // Not possible here (a sandbox refusing exec, say): run with the runtime's defaults.
  }
}
