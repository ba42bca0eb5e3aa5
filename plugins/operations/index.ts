import { Elysia, t } from 'elysia'
import type { Metrics } from '../../lib/metrics'
import { createReadiness, type ReadinessDeps } from './readiness'

const CheckResult = t.Object({
  status: t.Union([t.Literal('ok'), t.Literal('failing')]),
  error: t.Optional(t.String()),
  ms: t.Number({ description: 'How long the check took, in milliseconds' }),
  required: t.Optional(
    t.Literal(false, { description: "Data sources: never part of the node's readiness, listed with their state only" }),
  ),
  deploymentId: t.Optional(t.Integer({ description: 'Data sources: the deployment whose source it is' })),
  type: t.Optional(t.String({ description: 'Data sources: `sqlite`, `postgres`, `mysql` or `duckdb`' })),
})
export const ReadinessBody = t.Object({
  status: t.Union([t.Literal('ready'), t.Literal('unready')]),
  checks: t.Record(t.String(), CheckResult, {
    description:
      'One entry per dependency: `storage`, `postgres` when the state is in Postgres, `redis` with several nodes, and `shutdown` while the node stops; then `dataSource:<deploymentId>` per deployment, with its state, which never makes the node unready',
  }),
})

/** 503: the same body, with the `{ error, code }` every error answer carries beside it. */
export const UnreadyBody = t.Composite([
  ReadinessBody,
  t.Object({
    error: t.String({ description: 'The failing checks, named: "Not ready: redis"' }),
    code: t.Literal('NOT_READY'),
  }),
])

export interface OperationsDeps extends ReadinessDeps {
  metrics: Metrics
  instanceId: string
}

/** The operator's routes: liveness, readiness and the Prometheus metrics. None needs credentials. */
export function operationsPlugin(deps: OperationsDeps) {
  const readiness = createReadiness(deps)
  return new Elysia({ name: 'operations', seed: deps.instanceId })
    .get('/healthz', () => ({ status: 'ok' as const }), {
      response: t.Object({ status: t.Literal('ok') }),
      detail: {
        summary: 'Liveness',
        description: 'Answers 200 as long as the process serves requests.',
        tags: ['Operations'],
      },
    })
    .get(
      '/readyz',
      async ({ set }) => {
        const { ready, checks } = await readiness()
        if (ready) return { status: 'ready' as const, checks }
        set.status = 503
        const failing = Object.entries(checks)
          .filter(([, check]) => check.status === 'failing' && check.required !== false)
          .map(([name]) => name)
        return {
          status: 'unready' as const,
          checks,
          error: `Not ready: ${failing.join(', ') || 'unknown'}`,
          code: 'NOT_READY' as const,
        }
      },
      {
        response: { 200: ReadinessBody, 503: UnreadyBody },
        detail: {
          summary: 'Readiness',
          description:
            "200 when the storage (and Redis, with several nodes) answers; 503 naming the failing check otherwise, and while the node shuts down. Each deployment's data source is listed with its state but never makes the node unready.",
          tags: ['Operations'],
        },
      },
    )
    .get(
      '/metrics',
      async () => new Response(await deps.metrics.render(), { headers: { 'content-type': deps.metrics.contentType } }),
      {
        detail: {
          summary: 'Prometheus metrics',
          description:
            'Process metrics (CPU, memory, event-loop lag), `<prefix>_build_info`, HTTP, chat, semantic-query, model-call and admission series.',
          tags: ['Operations'],
        },
      },
    )
}
