import { join } from 'node:path'
import { applyBootstrap } from '../../src/bootstrap/apply'
import type { BootstrapFile } from '../../src/bootstrap/model'
import type { Storage } from '../../db/client'
import { openStorage, type SqliteStorage } from '../../db/sqlite/sqlite-storage'
import { hashSecret, randomToken } from '../../lib/secrets'
import { benchBootstrap } from '../lib/bootstrap'
import type { BenchContext } from '../lib/context'
import { alternate, medianOf } from '../lib/load'
import type { Row } from '../lib/report'
import { percentile, wallMs } from '../lib/stats'

const GROUPS = ['sales', 'marketing', 'finance']

/** Full provisioning: email, profile, 3 groups, 3 attributes, for one distinct user. */
function sessionBody(user: string, index: number) {
  return JSON.stringify({
    deploymentId: 1,
    externalId: user,
    email: `${user}@example.com`,
    userProfile: { displayName: `User ${index}`, picture: `https://example.com/avatars/${index}.png` },
    groups: GROUPS,
    userAttributes: [
      { name: 'region', value: 'Europe' },
      { name: 'tier', value: index % 5 },
      { name: 'labels', value: ['alpha', 'beta'] },
    ],
  })
}

/**
 * The raw `bun:sqlite` baseline: the same rows a provisioning call writes (the user, 3 memberships, 3 attribute
 * values, the session), with prepared statements, in one transaction per call, on the service's own schema.
 */
function rawBaseline(storage: SqliteStorage) {
  const { sqlite } = storage
  const account = sqlite.query<{ id: number }, []>("SELECT id FROM accounts WHERE name = 'bench'").get()!.id
  const groupIds = sqlite
    .query<{ id: number }, [number]>(
      'SELECT id FROM groups WHERE account_id = ? AND embed_tenant_id IS NULL ORDER BY id',
    )
    .all(account)
    .map((row) => row.id)
  const attributeIds = sqlite
    .query<{ id: number }, [number]>('SELECT id FROM user_attribute_definitions WHERE account_id = ? ORDER BY id')
    .all(account)
    .map((row) => row.id)
  const insertUser = sqlite.query<{ id: number }, [number, string, string, string, string, number, number]>(
    "INSERT INTO users (account_id, kind, identity, email, display_name, picture, created_at, updated_at) VALUES (?, 'external', ?, ?, ?, ?, ?, ?) RETURNING id",
  )
  const insertMembership = sqlite.query<never, [number, number]>(
    'INSERT INTO group_memberships (user_id, group_id) VALUES (?, ?)',
  )
  const insertValue = sqlite.query<never, [number, number, string]>(
    'INSERT INTO user_attribute_values (user_id, attribute_id, value) VALUES (?, ?, ?)',
  )
  const insertSession = sqlite.query<never, [string, string, number, number, string, string, number, number]>(
    `INSERT INTO embed_sessions (public_id, secret_hash, account_id, deployment_id, user_id, settings, security_context, groups, user_attributes, created_at, expires_at)
     VALUES (?, ?, ?, 1, ?, '{}', '{}', ?, ?, ?, ?)`,
  )
  return (user: string, index: number) => {
    const now = Date.now()
    sqlite
      .transaction(() => {
        const userId = insertUser.get(
          account,
          user,
          `${user}@example.com`,
          `User ${index}`,
          `https://example.com/avatars/${index}.png`,
          now,
          now,
        )!.id
        for (const groupId of groupIds) insertMembership.run(userId, groupId)
        const values = ['"Europe"', String(index % 5), '["alpha","beta"]']
        attributeIds.forEach((attributeId, position) => insertValue.run(userId, attributeId, values[position]))
        insertSession.run(
          randomToken(16),
          hashSecret(`es_${randomToken(32)}`),
          account,
          userId,
          JSON.stringify(GROUPS),
          '{"region":"Europe"}',
          now,
          now + 300_000,
        )
      })
      .immediate()
  }
}

/**
 * generate-session with full provisioning for 10,000 distinct users at concurrency 16: sessions/s and p99, against
 * the raw SQLite baseline doing the same rows' writes, in alternating batches. Target ≥ 2,000 sessions/s.
 */
export async function generateSessionScenario(context: BenchContext): Promise<Row[]> {
  const { users, concurrency, rounds } = context.config.sessions
  const tag = randomToken(4).toLowerCase() // externalIds are lowercase, or 400
  const storage = openStorage(join(context.dir, 'raw-baseline.db'))
  await applyBootstrap(storage, benchBootstrap(context.config) as BootstrapFile, 'bench')
  const raw = rawBaseline(storage)
  const perRound = Math.ceil(users / rounds)
  const latencies: number[] = []
  const failures: string[] = []
  const url = `${context.server.url}/api/v1/embed/generate-session`

  const service = async (round: number) => {
    const from = round * perRound
    const to = Math.min(users, from + perRound)
    let next = from
    const startedAt = wallMs()
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < to) {
          const index = next++
          const sentAt = wallMs()
          try {
            const response = await fetch(url, {
              method: 'POST',
              headers: context.headers,
              body: sessionBody(`bench-gs-${tag}-${index}`, index),
            })
            const body = (await response.json()) as { sessionId?: string; error?: string }
            if (!response.ok || !body.sessionId) failures.push(`HTTP ${response.status} ${body.error ?? ''}`)
          } catch (error) {
            failures.push(`network: ${(error as Error).message}`)
          }
          latencies.push(wallMs() - sentAt)
        }
      }),
    )
    return (to - from) / ((wallMs() - startedAt) / 1000)
  }
  const baseline = async (round: number) => {
    const from = round * perRound
    const to = Math.min(users, from + perRound)
    const startedAt = wallMs()
    for (let index = from; index < to; index++) raw(`bench-raw-${tag}-${index}`, index)
    return (to - from) / ((wallMs() - startedAt) / 1000)
  }
  try {
    const result = await alternate(rounds, service, baseline)
    const value = medianOf(result.a, (rate) => rate)
    const base = medianOf(result.b, (rate) => rate)
    const p99 = percentile(latencies, 99)
    const scenario = `generate-session (${users.toLocaleString('en')} users, full provisioning, concurrency ${concurrency})`
    context.log(`  generate-session: ${value.toFixed(0)}/s (raw SQLite ${base.toFixed(0)}/s), p99 ${p99.toFixed(1)} ms`)
    return [
      {
        scenario,
        figure: 'sessions/s (baseline: raw bun:sqlite writes)',
        value,
        unit: '/s',
        baseline: base,
        ratio: value / base,
        target: '≥ 2,000/s',
        met: failures.length === 0 && value >= 2000,
        note: failures.length
          ? `${failures.length} failed: ${[...new Set(failures)].slice(0, 3).join('; ')}`
          : undefined,
      },
      { scenario, figure: 'p50 latency', value: percentile(latencies, 50), unit: 'ms' },
      { scenario, figure: 'p99 latency', value: p99, unit: 'ms' },
    ]
  } finally {
    storage.close()
  }
}
