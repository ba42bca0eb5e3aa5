import { applyRuntimeTuning } from './runtime-tuning'

// The entry point. Runtime options first (this may re-execute the process, so nothing else is loaded before it),
// then the server itself, or the `--healthcheck` probe. (No top-level await: the binary's bytecode is CommonJS.)
applyRuntimeTuning()
import('./server').catch((error: unknown) => {
  process.stderr.write(`Failed to start: ${(error as Error)?.stack ?? String(error)}\n`)
  process.exit(1)
})
