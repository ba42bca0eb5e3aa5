import { tmpdir } from 'node:os'
import { join } from 'node:path'

/**
 * The demo data file every test of one `bun test` run shares (generated once, about 2 s), apart from the file a
 * server with `DB_PATH=:memory:` uses on this machine; `test/setup.ts` removes it when the run ends.
 */
export const TEST_DEMO_DATA = join(tmpdir(), `analytics-demo-tests-${process.pid}.db`)
