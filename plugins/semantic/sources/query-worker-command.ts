/**
 * The argument that makes the compiled binary run as a SQLite query process of `QueryPool` instead of the service
 * (`service <this>`; from source the pool runs `bun query-worker.ts`). A module of its own so `main.ts` can read it
 * without loading anything else.
 */
export const QUERY_WORKER_COMMAND = '__sqlite-query-worker'
