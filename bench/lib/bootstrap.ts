import type { BenchConfig } from './config'

export const BENCH_ACCOUNT = 'bench'
export const BENCH_KEY = 'ak_bench_0123456789abcdef'
/** The noisy neighbour: another account, with a deployment of its own over the same demo data. */
export const NEIGHBOUR_KEY = 'ak_bench_neighbour_0123456789'
export const NEIGHBOUR_DEPLOYMENT = 90

/** Agent ids of the bench bootstrap, one per scenario that needs its own script. */
export const AGENTS = { analyst: 1, protocol: 2, rejoin: 3, concurrency: 4 } as const

/**
 * The bootstrap of the server under test: one enterprise account with room for every user the scenarios create,
 * the groups and attributes generate-session provisions, and a scripted agent per scenario (their scripts are
 * the scenario's turn: `lines` deltas of `lineBytes` characters, `delayMs` apart).
 */
export function benchBootstrap(config: BenchConfig) {
  const scripted = (id: number, name: string, script: { lines: number; lineBytes: number; delayMs: number }) => ({
    id,
    name,
    kind: 'scripted',
    config: script,
  })
  return {
    accounts: [
      {
        name: BENCH_ACCOUNT,
        plan: 'enterprise',
        maxExternalUsers: 10_000_000,
        apiKeys: [{ name: 'bench', key: BENCH_KEY, admin: true }],
        groups: [{ name: 'sales' }, { name: 'marketing' }, { name: 'finance' }],
        userAttributes: [
          { name: 'region', type: 'string' },
          { name: 'tier', type: 'number' },
          { name: 'labels', type: 'string_array' },
        ],
        deployments: [
          {
            id: 1,
            name: 'Bench',
            branches: ['main', 'dev'],
            model: 'demo',
            agents: [
              { id: AGENTS.analyst, name: 'Analyst', kind: 'analyst' },
              scripted(AGENTS.protocol, 'Protocol turn', {
                lines: config.protocol.lines,
                lineBytes: config.protocol.lineBytes,
                delayMs: 0,
              }),
              scripted(AGENTS.rejoin, 'Rejoin fan-out', {
                lines: config.rejoin.tokens,
                lineBytes: 24,
                delayMs: config.rejoin.delayMs,
              }),
              scripted(AGENTS.concurrency, 'Concurrency', {
                lines: config.concurrency.lines,
                lineBytes: 40,
                delayMs: config.concurrency.delayMs,
              }),
            ],
          },
        ],
      },
      {
        name: 'neighbour',
        plan: 'enterprise',
        apiKeys: [{ name: 'neighbour', key: NEIGHBOUR_KEY, admin: true }],
        deployments: [{ id: NEIGHBOUR_DEPLOYMENT, name: 'Neighbour', model: 'demo' }],
      },
    ],
  }
}
