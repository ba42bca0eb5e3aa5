import { describe, expect, it } from 'bun:test'
import { existsSync } from 'node:fs'
import { runBench } from '../../bench/run'

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
        'overload',
        'protocol turn',
        'rejoin fan-out',
        'start-up',
        'sweep: open runs',
        'sweep: protocol turn',
        'websocket protocol turn',
      ].sort(),
    )
    expect(
      result.rows.filter((row) => !Number.isFinite(row.value)).map((row) => `${row.scenario}: ${row.figure}`),
    ).toEqual([])
    const byFigure = (figure: string) => result.rows.find((row) => row.figure === figure)
    expect(byFigure('joiners with every line, in order')?.value).toBe(100)
    expect(byFigure('streams complete without error')?.value).toBe(100)
    expect(byFigure('turns/s at concurrency 2')?.note).toBeUndefined()
    // The sweep measured every concurrency level without a failed turn, and held its open runs.
    for (const level of [1, 2])
      expect(byFigure(`server CPU per turn at concurrency ${level}`)?.note).not.toContain('failed')
    expect(byFigure('KB per open run at 6 runs')?.note).toStartWith('peak RSS')
    // Every overload turn was either admitted and completed or refused with 429, nothing else.
    const admitted = byFigure('turns admitted (200)')?.value
    const refused = byFigure('turns refused (429 TOO_MANY_RUNS)')?.value
    expect(admitted! + refused!).toBe(30)
    expect(byFigure('admitted turns completed')?.value).toBe(admitted!)
    expect(result.file).toBeUndefined()
    expect(existsSync(result.dir)).toBe(false)
    expect(result.pids.length).toBeGreaterThanOrEqual(3)
    expect(result.pids.filter(isRunning)).toEqual([])
  }, 120_000)
})
