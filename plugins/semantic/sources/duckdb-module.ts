import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'

type DuckdbModule = typeof import('@duckdb/node-api')

// A computed name: the bundler must not turn the lookup into a require of a module that is not embedded.
const NAME = ['@duckdb', 'node-api'].join('/')
let loaded: DuckdbModule | undefined

/**
 * The DuckDB client, loaded on first use (only when a DuckDB source or file is named). Its native library (about
 * 70 MB, beside a `.node` addon) cannot be embedded in the compiled binary, so the build leaves the package out.
 * From source it is an ordinary dependency; the binary looks for `node_modules/@duckdb/node-api` beside itself and
 * in the working directory, and says how to get DuckDB when that fails.
 */
export function duckdb(): DuckdbModule {
  if (loaded) return loaded
  try {
    return (loaded = createRequire(import.meta.url)(NAME) as DuckdbModule)
  } catch {
    // The compiled binary resolves packages inside itself only: look for the package folder by hand.
  }
  let reason = `${NAME} is not installed`
  for (const folder of [dirname(process.execPath), process.cwd()]) {
    const root = join(folder, 'node_modules', NAME)
    if (!existsSync(join(root, 'package.json'))) continue
    try {
      const { main = 'index.js' } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { main?: string }
      return (loaded = require(join(root, main)) as DuckdbModule)
    } catch (error) {
      reason = (error as Error).message.split('\n')[0]
    }
  }
  throw new Error(
    `DuckDB could not be loaded (${reason}). DuckDB sources run when the service runs from source (npm ci, then npm start or npm run cli)`,
  )
}
