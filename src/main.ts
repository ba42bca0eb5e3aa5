import { QUERY_WORKER_COMMAND } from '../plugins/semantic/sources/query-worker-command'
import { applyRuntimeTuning } from './runtime-tuning'

// The entry point. Runtime options first (this may re-execute the process, so nothing else is loaded before it),
// then the command line: `serve` by default, or another subcommand. The binary is built as ES modules with code
// splitting, so what these dynamic imports load is a chunk of its own: the process that only re-executes itself
// loads this file and the tuning, not the whole server.
if (process.argv[2] === QUERY_WORKER_COMMAND) {
  // A SQLite query process the server started (the compiled binary's way to run it): nothing else to load.
  import('../plugins/semantic/sources/query-worker')
} else {
  applyRuntimeTuning()
  import('./cli')
    .then(({ runCli }) => runCli(process.argv.slice(2)))
    .then((code) => {
      // A finished command exits with its code; the server (no code) keeps the process alive until a signal.
      if (code !== undefined) process.exitCode = code
    })
    .catch((error: unknown) => {
      process.stderr.write(`Failed to start: ${(error as Error)?.stack ?? String(error)}\n`)
      process.exit(1)
    })
}
