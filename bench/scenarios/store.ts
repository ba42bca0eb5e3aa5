import { join } from 'node:path'
import { SQL } from 'bun'
import type { Storage } from '../../db/client'
import { openPostgresStorage } from '../../db/postgres/postgres-storage'
import type { MessageSave } from '../../db/repositories/threads'
import { openStorage } from '../../db/sqlite/sqlite-storage'
import { backingServersMissing, startPostgres } from '../lib/backing-servers'
import type { BenchContext } from '../lib/context'
import { cpuMsOfTrees } from '../lib/cpu'
import type { Row } from '../lib/report'
import { tracked } from './scale-out'

const SCENARIO = 'thread store alone: a protocol turn’s writes, no HTTP, no agent'

/** The protocol turn's answer: the scripted agent's lines, joined. */
function answerOf(context: BenchContext): string {
  const { lines, lineBytes } = context.config.protocol
  return 'lorem ipsum dolor sit amet '.repeat(Math.ceil((lines * lineBytes) / 27)).slice(0, lines * lineBytes)
}

/** The rows a new thread points to: an account, a deployment, an agent and a user. */
async function seedOwner(storage: Storage, name: string) {
  const { accounts, deployments, agents, users } = storage.tables
  return storage.transaction(async (tx) => {
    const [account] = await tx.insert(accounts).values({ name, plan: 'enterprise', createdAt: 1 }).returning()
    const [deployment] = await tx
      .insert(deployments)
      .values({ accountId: account.id, name: 'Bench', model: 'demo', createdAt: 1 })
      .returning()
    const [agent] = await tx.insert(agents).values({ deploymentId: deployment.id, name: 'Protocol' }).returning()
    const [user] = await tx
      .insert(users)
      .values({ accountId: account.id, kind: 'external', identity: 'bench', createdAt: 1, updatedAt: 1 })
      .returning()
    return { accountId: account.id, deploymentId: deployment.id, agentId: agent.id, userId: user.id }
  })
}

/**
 * `concurrency` turns at a time, each a new thread's start, its whole answer saved, its run ended, one after the
 * other, as the service writes a protocol turn: the starts and the ends of the turns ready together go in one group
 * commit, and the answers of every run in one save a commit, as the chat's open messages gather them.
 */
async function turns(storage: Storage, concurrency: number, count: number, answer: string, prefix: string) {
  const owner = await seedOwner(storage, prefix)
  const store = storage.repositories.threads(() => Date.now())
  let pending: MessageSave[] = []
  let saving: Promise<ReadonlySet<string>> | undefined
  const save = (message: MessageSave) => {
    pending.push(message)
    saving ??= store.saveMessages(() => {
      const taken = pending
      pending = []
      saving = undefined
      return taken
    })
    return saving
  }
  let next = 0
  async function turn() {
    const id = `${prefix}-${next++}`
    const started = await store.startTurn({
      thread: { id, ...owner },
      isNewThread: true,
      runId: `run-${id}`,
      messageId: `message-${id}`,
      branch: 'main',
      input: 'Protocol turn',
      images: undefined,
      devMode: false,
      checkMessage: true,
    })
    await save({
      threadId: id,
      id: `answer-${id}`,
      sort: started.nextSort,
      content: answer,
      thinking: null,
      graphPath: '[]',
      toolCall: null,
      status: 'complete',
      runId: `run-${id}`,
      createdAt: 1,
      updatedAt: 1,
      epoch: started.epoch,
    })
    await store.endRun(`run-${id}`, started.epoch, 'completed', undefined)
  }
  let left = count
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (left-- > 0) await turn()
    }),
  )
}

/**
 * The least any way of storing a turn could cost Postgres that keeps the answer: each turn one row holding the
 * answer's bytes, the rows of the turns ready together inserted in one transaction (a statement each, pipelined, one
 * commit at a time), `concurrency` turns at a time. The gap between the thread store's figure and this one is what its
 * five rows a turn, their indexes and foreign keys, and its three commits cost over the bytes themselves.
 */
async function oneRowTurns(sql: SQL, concurrency: number, count: number, answer: string, prefix: string) {
  let pending: Array<{ id: string; done(): void; failed(error: unknown): void }> = []
  let committing: Promise<void> | undefined
  const commit = async (): Promise<void> => {
    while (pending.length > 0) {
      const rows = pending
      pending = []
      try {
        await sql.begin((tx) =>
          Promise.all(
            rows.map(
              (row) =>
                tx`INSERT INTO bench_one_row_turns (id, user_id, answer, created_at) VALUES (${row.id}, 1, ${answer}, ${Date.now()})`,
            ),
          ),
        )
        for (const row of rows) row.done()
      } catch (error) {
        for (const row of rows) row.failed(error)
      }
    }
    committing = undefined
  }
  const store = (id: string) =>
    new Promise<void>((done, failed) => {
      pending.push({ id, done, failed })
      committing ??= new Promise<void>((resolve) => setImmediate(resolve)).then(commit)
    })
  let next = 0
  let left = count
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (left-- > 0) await store(`${prefix}-${next++}`)
    }),
  )
}

/** This process's CPU so far, in milliseconds. */
const ownCpuMs = () => {
  const { user, system } = process.cpuUsage()
  return (user + system) / 1000
}

/**
 * What storing a protocol turn costs on each backend, the thread store called directly (no HTTP, no agent, no
 * Redis): SQLite in this process, Postgres in its backends with the client's share in this process, at 1, 8 and
 * 32 turns at a time (group commits of about as many turns). Postgres's CPU a turn here is what the nodes scenario's
 * Postgres figure cannot go below, whatever the nodes do, on this machine: the floor of its 0.15 ms target.
 */
export async function storeScenario(context: BenchContext): Promise<Row[]> {
  const missing = backingServersMissing()
  const rows: Row[] = []
  const row = (figure: string, value: number, baseline?: number, note?: string): Row => ({
    scenario: SCENARIO,
    figure,
    value,
    unit: 'ms',
    ...(baseline !== undefined && { baseline, ratio: value / baseline }),
    note,
  })
  const answer = answerOf(context)
  const warm = context.config.mode === 'tiny' ? 8 : 100
  // Enough turns, even tiny, for Postgres's CPU to show in its processes' clock ticks (10 ms each).
  const count = { full: 4000, quick: 1000, tiny: 400 }[context.config.mode]
  const postgres = missing ? undefined : await startPostgres(context.dir)
  const stopPostgres = postgres ? tracked(context, () => postgres.stop()) : undefined
  try {
    for (const concurrency of [1, 8, 32]) {
      const turnsNow = concurrency === 1 ? count / 4 : count
      const sqlite = openStorage(join(context.dir, `store-${concurrency}.db`))
      let sqliteMs: number
      try {
        await turns(sqlite, concurrency, warm, answer, 'warm')
        const before = ownCpuMs()
        await turns(sqlite, concurrency, turnsNow, answer, 'turn')
        sqliteMs = (ownCpuMs() - before) / turnsNow
      } finally {
        sqlite.close()
      }
      rows.push(row(`CPU per turn on SQLite, ${concurrency} at a time`, sqliteMs))
      if (!postgres) continue
      const storage = await openPostgresStorage(postgres.url, { poolSize: 10 })
      try {
        await turns(storage, concurrency, warm, answer, `warm-${concurrency}`)
        const before = { client: ownCpuMs(), server: cpuMsOfTrees([postgres.pid!]) }
        await turns(storage, concurrency, turnsNow, answer, `turn-${concurrency}`)
        const server = (cpuMsOfTrees([postgres.pid!]) - before.server) / turnsNow
        const client = (ownCpuMs() - before.client) / turnsNow
        rows.push(
          row(
            `Postgres’s CPU per turn, ${concurrency} at a time (baseline: SQLite’s)`,
            server,
            sqliteMs,
            `its client’s ${client.toFixed(3)} ms a turn more, in the node`,
          ),
        )
      } finally {
        await storage.close()
      }
      const sql = new SQL(postgres.url, { max: 2 })
      try {
        await sql`CREATE TABLE IF NOT EXISTS bench_one_row_turns (id text PRIMARY KEY, user_id integer NOT NULL,
                    answer text NOT NULL, created_at bigint NOT NULL)`
        await oneRowTurns(sql, concurrency, warm, answer, `warm-${concurrency}`)
        const before = cpuMsOfTrees([postgres.pid!])
        await oneRowTurns(sql, concurrency, turnsNow, answer, `turn-${concurrency}`)
        rows.push(
          row(
            `Postgres’s CPU per turn, one row of the answer a turn, ${concurrency} at a time (any design’s floor)`,
            (cpuMsOfTrees([postgres.pid!]) - before) / turnsNow,
          ),
        )
      } finally {
        await sql.close()
      }
    }
  } finally {
    await stopPostgres?.()
  }
  if (missing) rows.push({ scenario: SCENARIO, figure: 'Postgres', value: 0, unit: '', note: `skipped: ${missing}` })
  return rows
}
