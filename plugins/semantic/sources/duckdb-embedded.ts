import { dlopen, FFIType } from 'bun:ffi'
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
// The shared library the addon links against (about 70 MB): embedded in the compiled binary as a file.
import library from '@duckdb/node-bindings-linux-x64/libduckdb.so' with { type: 'file' }
import { version } from '@duckdb/node-bindings-linux-x64/package.json'

type DuckdbModule = typeof import('@duckdb/node-api')

let handle: unknown

/**
 * DuckDB from inside the compiled binary. Bun embeds the `.node` addon that `@duckdb/node-bindings` requires and
 * extracts it to a temporary file when it is loaded, but not the `libduckdb.so` the addon finds beside itself
 * (`$ORIGIN`). So the library is copied out once to a cache folder and loaded first: the dynamic linker then
 * satisfies the addon's dependency with the library already in the process (same soname).
 */
export function embeddedDuckdb(): DuckdbModule {
  const folder = process.env.DUCKDB_LIBRARY_CACHE || join(tmpdir(), `analytics-chat-duckdb-${process.getuid?.() ?? 0}`)
  const size = Bun.file(library).size
  // Named by version and size: a binary of another DuckDB version never loads this one's copy.
  const target = join(folder, `libduckdb-${version}-${size}.so`)
  mkdirSync(folder, { recursive: true, mode: 0o700 })
  // A library loaded into the process runs as this user: never from a folder someone else could write to.
  const owner = statSync(folder)
  if ((process.getuid && owner.uid !== process.getuid()) || (owner.mode & 0o022) !== 0) {
    throw new Error(`${folder} is not a private folder of this user (set DUCKDB_LIBRARY_CACHE to one)`)
  }
  if (!existsSync(target) || statSync(target).size !== size) {
    // Copied under a temporary name and renamed: two processes starting at once never load a half-written file.
    const partial = `${target}.${process.pid}.partial`
    // Read and written, not copied: copyfile does not reach into the binary's embedded file system.
    writeFileSync(partial, readFileSync(library), { mode: 0o700 })
    renameSync(partial, target)
  }
  // bun:ffi wants one symbol; the handle is kept so the library stays loaded for the life of the process.
  handle ??= dlopen(target, { duckdb_library_version: { args: [], returns: FFIType.cstring } })
  return require('@duckdb/node-api') as DuckdbModule
}
