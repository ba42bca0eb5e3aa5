import { cpuMsOfTrees, machineCpuTicks } from './cpu'
import type { TurnOutcome } from './ndjson-client'
import { median, wallMs } from './stats'

export interface LoadResult {
  /** Turns that completed correctly. */
  turns: number
  failures: number
  /** A few distinct failure reasons, for the report. */
  failureSamples: string[]
  seconds: number
  /** Correct turns per second over the whole window. */
  perSecond: number
  outcomes: TurnOutcome[]
}

/**
 * A closed loop: `concurrency` clients each send a turn, read it to the end and send the next, until `durationMs`
 * has passed (turns in flight then are finished and counted; the window runs to the last of them).
 */
export async function closedLoop(
  concurrency: number,
  durationMs: number,
  turn: (slot: number, sequence: number) => Promise<TurnOutcome>,
): Promise<LoadResult> {
  const outcomes: TurnOutcome[] = []
  const startedAt = wallMs()
  const deadline = startedAt + durationMs
  let sequence = 0
  const client = async (slot: number) => {
    while (wallMs() < deadline) outcomes.push(await turn(slot, sequence++))
  }
  await Promise.all(Array.from({ length: concurrency }, (_, slot) => client(slot)))
  const seconds = (wallMs() - startedAt) / 1000
  return summarize(outcomes, seconds)
}

export function summarize(outcomes: TurnOutcome[], seconds: number): LoadResult {
  const failed = outcomes.filter((outcome) => !outcome.ok)
  const turns = outcomes.length - failed.length
  return {
    turns,
    failures: failed.length,
    failureSamples: [...new Set(failed.map((outcome) => outcome.failure ?? 'unknown'))].slice(0, 5),
    seconds,
    perSecond: turns / seconds,
    outcomes,
  }
}

export interface Alternation<T> {
  a: T[]
  b: T[]
}

/**
 * Runs `a` and `b` in alternation, A B A B ..., `rounds` times each, so slow drifts of a shared machine (other
 * processes, thermal limits) hit both sides alike; compare the medians.
 */
export async function alternate<T>(
  rounds: number,
  a: (round: number) => Promise<T>,
  b: (round: number) => Promise<T>,
): Promise<Alternation<T>> {
  const result: Alternation<T> = { a: [], b: [] }
  for (let round = 0; round < rounds; round++) {
    result.a.push(await a(round))
    result.b.push(await b(round))
  }
  return result
}

export function medianOf<T>(values: T[], pick: (value: T) => number): number {
  return median(values.map(pick))
}

/**
 * A round's result with the CPU spent per correct turn, in ms, by the service's processes (`pids` and their
 * descendants) and by the servers they use (`backing`: Postgres with its backends, Redis), and how busy the whole
 * machine was meanwhile (0 to 1 of all its cores: the load generator included).
 */
export async function withServerCpu(
  pids: number[],
  round: () => Promise<LoadResult>,
  backing: number[] = [],
): Promise<LoadResult & { cpuMsPerTurn: number; backingCpuMsPerTurn: number; machineBusy: number }> {
  const before = [cpuMsOfTrees(pids), cpuMsOfTrees(backing)]
  const machine = machineCpuTicks()
  const result = await round()
  const after = machineCpuTicks()
  return {
    ...result,
    cpuMsPerTurn: (cpuMsOfTrees(pids) - before[0]) / result.turns,
    backingCpuMsPerTurn: (cpuMsOfTrees(backing) - before[1]) / result.turns,
    machineBusy: (after.busy - machine.busy) / (after.total - machine.total),
  }
}
