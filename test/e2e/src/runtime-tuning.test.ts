import { afterAll, describe, expect, it } from 'bun:test'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { HEAP_GROWTH_OPTION, PURGE_DELAY_OPTION, RUNTIME_SETTINGS } from '../../../src/runtime-tuning'
import { serverDatabase, type ServerDatabase } from '../../helpers/server-database'
import { startServerProcess, type ServerProcess } from '../../../harness/server-process'
import { TEST_DEMO_DATA } from '../../helpers/demo-data'

const dir = mkdtempSync(join(tmpdir(), 'runtime-tuning-'))
const servers: ServerProcess[] = []
const databases: ServerDatabase[] = []
afterAll(async () => {
  for (const server of servers) await server.stop('SIGKILL')
  for (const database of databases) await database.drop()
  rmSync(dir, { recursive: true, force: true })
})

/** The environment the kernel holds for a process (what JSC read when it started). */
const environmentOf = (pid: number): Record<string, string> =>
  Object.fromEntries(
    readFileSync(`/proc/${pid}/environ`, 'utf8')
      .split('\0')
      .filter(Boolean)
      .map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)]),
  )

const start = async (extra: Record<string, string> = {}) => {
  const database = await serverDatabase(dir, `service-${servers.length}`)
  databases.push(database)
  const server = await startServerProcess({
    env: {
      ...database.env,
      DEMO_DATA_PATH: TEST_DEMO_DATA,
      ...extra,
    },
  })
  servers.push(server)
  return server
}

describe('the entry point', () => {
  it.skipIf(process.platform !== 'linux')(
    're-executes the server in place with the heap and allocator settings',
    async () => {
      const server = await start()
      // Same process (the pid the parent spawned), now started with the settings in its environment.
      const environment = environmentOf(server.process.pid)
      for (const [name, value] of Object.entries(RUNTIME_SETTINGS))
        expect({ name, value: environment[name] }).toEqual({ name, value })
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200)
      expect(await server.stop()).toBe(0)
    },
    60_000,
  )

  it.skipIf(process.platform !== 'linux')(
    "keeps an operator's own value",
    async () => {
      const server = await start({ [HEAP_GROWTH_OPTION]: '2' })
      expect(environmentOf(server.process.pid)[HEAP_GROWTH_OPTION]).toBe('2')
      // The setting it did not have is added all the same.
      expect(environmentOf(server.process.pid)[PURGE_DELAY_OPTION]).toBe(RUNTIME_SETTINGS[PURGE_DELAY_OPTION])
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200)
    },
    60_000,
  )
})
