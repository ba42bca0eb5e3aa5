/** How big each scenario is. `full` is the definition; `quick` keeps every scenario but shortens it. */
export interface BenchConfig {
  mode: 'full' | 'quick' | 'tiny'
  /** A/B rounds per throughput figure (A B A B ...), and how long each side runs per round. */
  rounds: number
  roundMs: number
  protocol: { lines: number; lineBytes: number; concurrency: number[] }
  analyst: { concurrency: number }
  rejoin: { tokens: number; delayMs: number; joiners: number; workers: number; trials: number }
  concurrency: { runs: number; lines: number; delayMs: number; rampMs: number; workers: number }
  websocket: { concurrency: number }
  sessions: { users: number; concurrency: number; rounds: number }
  startup: { samples: number }
  overload: { turns: number; users: number; workers: number }
  /** How cost grows: protocol turns at each concurrency, then memory at each number of open runs. */
  sweep: { concurrency: number[]; roundMs: number; openRuns: number[] }
  /** A bystander's trivial queries, `samples` idle and as many while another account runs `heavy` at once. */
  noisy: { samples: number; heavy: number }
  /** How many nodes the several-nodes scenario runs on Postgres and Redis (`--nodes N`). */
  nodes: number
}

const full: BenchConfig = {
  mode: 'full',
  rounds: 5,
  roundMs: 4000,
  // 45 deltas + cutoff, user echo, message start, message end and __state__ = 50 lines, about 46 KB.
  protocol: { lines: 45, lineBytes: 430, concurrency: [1, 32] },
  analyst: { concurrency: 32 },
  rejoin: { tokens: 200, delayMs: 10, joiners: 1000, workers: 2, trials: 3 },
  concurrency: { runs: 10_000, lines: 30, delayMs: 1000, rampMs: 5000, workers: 4 },
  websocket: { concurrency: 32 },
  sessions: { users: 10_000, concurrency: 16, rounds: 5 },
  startup: { samples: 7 },
  overload: { turns: 2000, users: 20, workers: 2 },
  sweep: { concurrency: [1, 8, 32, 128, 512], roundMs: 3000, openRuns: [1000, 5000, 10_000] },
  noisy: { samples: 40, heavy: 8 },
  nodes: 2,
}

export function benchConfig(mode: BenchConfig['mode']): BenchConfig {
  if (mode === 'full') return full
  if (mode === 'quick')
    return {
      ...full,
      mode,
      rounds: 2,
      roundMs: 2500,
      rejoin: { ...full.rejoin, trials: 1 },
      // Memory is a matter of how many runs are open at once, not of how long: 10 s holds all 10,000 as well.
      concurrency: { ...full.concurrency, lines: 10 },
      sessions: { ...full.sessions, rounds: 2 },
      startup: { samples: 3 },
      sweep: { ...full.sweep, roundMs: 1500 },
      noisy: { samples: 15, heavy: 8 },
    }
  // The harness's own test: every scenario, seconds in all.
  return {
    mode,
    rounds: 1,
    roundMs: 300,
    protocol: { lines: 5, lineBytes: 40, concurrency: [1, 2] },
    analyst: { concurrency: 2 },
    rejoin: { tokens: 20, delayMs: 50, joiners: 4, workers: 1, trials: 1 },
    concurrency: { runs: 12, lines: 3, delayMs: 50, rampMs: 50, workers: 1 },
    websocket: { concurrency: 2 },
    sessions: { users: 20, concurrency: 2, rounds: 1 },
    startup: { samples: 1 },
    overload: { turns: 30, users: 3, workers: 1 },
    sweep: { concurrency: [1, 2], roundMs: 200, openRuns: [6] },
    noisy: { samples: 3, heavy: 2 },
    nodes: 2,
  }
}
