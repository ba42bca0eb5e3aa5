import type { Run } from './run'

export interface RunDeadlineOptions {
  /** A run whose agent sends nothing for this long ends (a tool that is running does not count as silence). */
  firstTokenTimeoutMs: number
  /** A run ends once it has executed this long. */
  turnTimeoutMs: number
  now?: () => number
}

export const SILENT_MODEL_MESSAGE = 'The model did not answer in time'

/** The error line of a turn that passed its time limit (`CHAT_TURN_TIMEOUT_MS`), whichever timer noticed first. */
export function turnTimeLimitMessage(turnTimeoutMs: number): string {
  return `The answer took longer than ${formatSeconds(turnTimeoutMs)} and was stopped`
}

interface Watched {
  run: Run
  startedAt: number
  /** The run's activity when last seen (its lines and what the model sent without one), and when it last changed. */
  activity: number
  changedAt: number
}

/**
 * Ends runs that hang: one whose model sends nothing for `firstTokenTimeoutMs` (a provider that never answers,
 * or stops halfway) and one that passes `turnTimeoutMs` in all. The run is aborted with a reason its readers get as
 * the turn's error line, and its thread takes new messages again. A run's progress is its log growing, so the
 * executor pays nothing per line: one timer for all watched runs looks at each about four times per timeout
 * (at most every second), so a run ends within a quarter of the timeout after its deadline.
 */
export function createRunDeadlines(options: RunDeadlineOptions) {
  const now = options.now ?? (() => performance.now())
  const { firstTokenTimeoutMs, turnTimeoutMs } = options
  const watched = new Set<Watched>()
  const periodMs = Math.max(5, Math.min(1000, Math.floor(Math.min(firstTokenTimeoutMs, turnTimeoutMs) / 4)))
  let timer: ReturnType<typeof setInterval> | undefined

  const check = () => {
    const at = now()
    for (const entry of watched) {
      const { run } = entry
      if (run.done) {
        watched.delete(entry)
        continue
      }
      if (at - entry.startedAt >= turnTimeoutMs) {
        watched.delete(entry)
        run.abort(turnTimeLimitMessage(turnTimeoutMs))
        continue
      }
      if (run.activity !== entry.activity) {
        entry.activity = run.activity
        entry.changedAt = at
      } else if (at - entry.changedAt >= firstTokenTimeoutMs && run.toolsRunning === 0) {
        watched.delete(entry)
        run.abort(SILENT_MODEL_MESSAGE)
      }
    }
    if (watched.size === 0 && timer) {
      clearInterval(timer)
      timer = undefined
    }
  }

  return {
    /** Watches `run` from now (when it starts executing); returns the function that stops watching it. */
    watch(run: Run): () => void {
      const at = now()
      const entry: Watched = { run, startedAt: at, activity: run.activity, changedAt: at }
      watched.add(entry)
      if (!timer) {
        timer = setInterval(check, periodMs)
        timer.unref?.()
      }
      return () => {
        watched.delete(entry)
      }
    },
    get size(): number {
      return watched.size
    },
  }
}

export type RunDeadlines = ReturnType<typeof createRunDeadlines>

function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`
}
