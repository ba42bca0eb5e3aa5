import type { Problem } from './api'

/** A whole-page message for a session that cannot be used: what happened and what to do, in plain words. */
export function ProblemView({ problem }: { problem: Problem }) {
  return (
    <main class="problem" data-problem={problem.code}>
      <div class="problem-box" role="alert">
        <h1>{problem.title}</h1>
        <p>{problem.detail}</p>
      </div>
    </main>
  )
}

export function Loading({ label }: { label: string }) {
  return (
    <p class="page-status" role="status">
      {label}
    </p>
  )
}
