import { describe, expect, it } from 'bun:test'
import { existsSync } from 'node:fs'
import { backingServersMissing } from '../../../bench/lib/backing-servers'
import { runBench } from '../../../bench/run'
import { loadConfig } from '../../../lib/config'

/** Whether this build reads DATABASE_URL: the several-node scenario measures nodes on Postgres, or is left out. */
const postgresStorage = (() => {
  const url = 'postgres://probe@127.0.0.1:1/probe'
  return JSON.stringify(loadConfig({ DATABASE_URL: url })).includes(url)
})()

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

describe('runBench', () => {
  // The harness's own check in a tiny configuration: every scenario starts, produces its figures and stops. The
  // figures themselves are timing and never asserted here; only what must hold on any machine is.
  it('runs every scenario against a real server process and leaves no process or file behind', async () => {
    const result = await runBench({ mode: 'tiny', server: 'source', log: () => {} })
    const scenarios = new Set(result.rows.map((row) => row.scenario.split(' (')[0]))
    expect([...scenarios].sort()).toEqual(
      [
        'analyst turn',
        'concurrency',
        'generate-session',
        'noisy neighbour',
        'overload',
        'protocol turn',
        'rejoin fan-out',
        'start-up',
        'sweep: open runs',
        'sweep: protocol turn',
        'thread store alone: a protocol turn’s writes, no HTTP, no agent',
        'websocket protocol turn',
        // Without Postgres and redis-server (CI installs both) these say so and are left out; the nodes on Postgres
        // need a build that keeps its state there.
        ...(backingServersMissing()
          ? []
          : [
              ...(postgresStorage
                ? ['several nodes: protocol turn at concurrency 2', 'several nodes: rejoin across nodes']
                : []),
              'workers: protocol turn at concurrency 2',
            ]),
      ].sort(),
    )
    expect(
      result.rows.filter((row) => !Number.isFinite(row.value)).map((row) => `${row.scenario}: ${row.figure}`),
    ).toEqual([])
    const byFigure = (figure: string) => result.rows.find((row) => row.figure === figure)
    for (const row of result.rows.filter((each) => each.figure === 'joiners with every line, in order'))
      expect(row.value, row.scenario).toBe(100)
    // Every turn on several nodes and on several workers completed.
    for (const row of result.rows.filter((each) => each.figure.startsWith('turns/s, ')))
      expect(row.note, `${row.scenario}: ${row.figure}`).toBeUndefined()
    expect(byFigure('streams complete without error')?.value).toBe(100)
    expect(byFigure('turns/s at concurrency 2')?.note).toBeUndefined()
    // The protocol turn is also measured against the durable baseline (it stores each turn before it answers).
    expect(
      byFigure('turns/s at concurrency 2, against the durable baseline (bun:sqlite WAL, group commit)')?.ratio,
    ).toBeGreaterThan(0)
    // The sweep measured every concurrency level without a failed turn, and held its open runs.
    for (const level of [1, 2])
      expect(byFigure(`server CPU per turn at concurrency ${level}`)?.note).not.toContain('failed')
    expect(byFigure('KB per open run at 6 runs')?.note).toStartWith('peak RSS')
    // Where a turn on two nodes goes: it writes to Postgres (the answer's bytes) and runs Redis commands.
    const perTurn = (figure: string) => byFigure(`${figure} per turn, two nodes`)?.value
    if (!backingServersMissing() && postgresStorage) {
      expect(perTurn('Postgres statements')).toBeGreaterThan(1)
      expect(perTurn('bytes to Postgres')).toBeGreaterThan(0)
      expect(perTurn('Redis commands (those scripts run included)')).toBeGreaterThan(0)
      // A commit's turn starts, saves and ends each go as one multi-row statement over a JSON parameter.
      expect(byFigure('Postgres statements per turn, two nodes')?.note).toContain('json_to_recordset')
      // Each turn stores a new thread, its two messages and its run, and ends the run (the counts of the last second
      // may not be in yet: backends report them at most once a second).
      expect(perTurn('Postgres rows written (inserted, updated, deleted)')).toBeGreaterThan(1)
      expect(byFigure('Postgres rows written (inserted, updated, deleted) per turn, two nodes')?.note).toContain(
        'chat_runs insert',
      )
    }
    // The thread store alone: what storing a turn costs on SQLite, and on Postgres when it is installed.
    for (const concurrency of [1, 8, 32]) {
      expect(byFigure(`CPU per turn on SQLite, ${concurrency} at a time`)?.value).toBeGreaterThan(0)
      if (!backingServersMissing()) {
        expect(
          byFigure(`Postgres’s CPU per turn, ${concurrency} at a time (baseline: SQLite’s)`)?.ratio,
        ).toBeGreaterThan(0)
        // A floor of about 0.05 ms a turn: the tiny round's few hundred turns may fit in one 10 ms clock tick.
        expect(
          byFigure(
            `Postgres’s CPU per turn, one row of the answer a turn, ${concurrency} at a time (any design’s floor)`,
          )?.value,
        ).toBeGreaterThanOrEqual(0)
      }
    }
    // Every overload turn was either admitted and completed or refused with 429, nothing else.
    const admitted = byFigure('turns admitted (200)')?.value
    const refused = byFigure('turns refused (429 TOO_MANY_RUNS)')?.value
    expect(admitted! + refused!).toBe(30)
    expect(byFigure('admitted turns completed')?.value).toBe(admitted!)
    expect(result.file).toBeUndefined()
    expect(existsSync(result.dir)).toBe(false)
    expect(result.pids.length).toBeGreaterThanOrEqual(3)
    expect(result.pids.filter(isRunning)).toEqual([])
  }, 240_000)
})
