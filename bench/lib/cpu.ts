import { readdirSync, readFileSync } from 'node:fs'

/** Clock ticks per second of /proc's CPU times (100 on Linux everywhere the bench runs). */
const TICKS_PER_SECOND = 100

/** The fields of /proc/<pid>/stat after the command name, or undefined once the process is gone. */
function statOf(pid: number): number[] | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // The command name (field 2) may hold spaces: the fields after it start past its closing parenthesis.
    return text
      .slice(text.lastIndexOf(')') + 2)
      .split(' ')
      .map(Number)
  } catch {
    return undefined
  }
}

/**
 * Every live process's children, from the parent pid in each process's stat: `/proc/<pid>/task/<pid>/children`
 * exists only on kernels built with it, and lists only the children of that one thread.
 */
function childrenByParent(): Map<number, number[]> {
  const children = new Map<number, number[]>()
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry)
    if (!Number.isInteger(pid)) continue
    const stat = statOf(pid)
    if (!stat) continue
    // After the command: state is field 3, the parent pid field 4.
    const parent = stat[1]
    children.set(parent, [...(children.get(parent) ?? []), pid])
  }
  return children
}

/**
 * CPU time, in milliseconds, used so far by the processes `pids` and all their descendants: live ones by their own
 * user and system time, finished ones by what their parents collected when they exited (Postgres backends come and
 * go with connections). The difference over a round is the CPU the servers spent on it.
 */
export function cpuMsOfTrees(pids: number[]): number {
  const children = childrenByParent()
  let ticks = 0
  const seen = new Set<number>()
  const visit = (pid: number) => {
    if (seen.has(pid)) return
    seen.add(pid)
    const stat = statOf(pid)
    // utime is field 14, stime 15, cutime 16, cstime 17 of the whole line.
    if (stat) ticks += stat[11] + stat[12] + stat[13] + stat[14]
    for (const child of children.get(pid) ?? []) visit(child)
  }
  for (const pid of pids) visit(pid)
  return (ticks * 1000) / TICKS_PER_SECOND
}

/**
 * The whole machine's CPU time so far, in clock ticks summed over every core, from the first line of /proc/stat:
 * `busy` is all of it but idle and I/O wait. The difference over a round shows whether the machine had a core to
 * spare (the load generator and the backing servers included), which per-process figures cannot.
 */
export function machineCpuTicks(): { busy: number; total: number } {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0].trim().split(/\s+/).slice(1).map(Number)
    // user nice system idle iowait irq softirq steal (guest times are already counted in user and nice).
    const total = fields.slice(0, 8).reduce((sum, value) => sum + value, 0)
    return { busy: total - fields[3] - fields[4], total }
  } catch {
    return { busy: Number.NaN, total: Number.NaN }
  }
}

/** CPU time, in milliseconds, that the process `pid` itself has spent in the kernel so far (0 once it is gone). */
export function systemCpuMsOf(pid: number): number {
  // stime is field 15 of the whole line.
  return ((statOf(pid)?.[12] ?? 0) * 1000) / TICKS_PER_SECOND
}
