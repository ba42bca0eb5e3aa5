import { createRequire } from 'node:module'

type DuckdbModule = typeof import('@duckdb/node-api')

let loaded: DuckdbModule | undefined

/**
 * The DuckDB client, loaded on first use (only when a DuckDB source or file is named), so a service without one
 * never loads its 70 MB native library. From source it is an ordinary dependency; the compiled binary carries its
 * own copy (see `duckdb-embedded.ts`).
 */
export function duckdb(): DuckdbModule {
  if (loaded) return loaded
  try {
    loaded = compiled()
      ? (require('./duckdb-embedded') as typeof import('./duckdb-embedded')).embeddedDuckdb()
      : (createRequire(import.meta.url)('@duckdb/node-api') as DuckdbModule)
    return loaded
  } catch (error) {
    throw new Error(`DuckDB could not be loaded (${(error as Error).message.split('\n')[0]})`)
  }
}

/** The entry of a binary built by `bun build --compile` lives in Bun's embedded file system. */
function compiled(): boolean {
  return Bun.main.startsWith('/$bunfs/') || /^[A-Z]:[\\/]~BUN[\\/]/.test(Bun.main)
}
