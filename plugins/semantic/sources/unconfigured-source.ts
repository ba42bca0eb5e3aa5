import { DataSourceUnavailableError } from '../errors'
import { redact, type DataSource, type DataSourceType } from './data-source'
import type { Dialect } from './dialects/dialect'

/**
 * The source of a configuration its driver refuses (a URL setting such as `sslmode=bogus`): it never stops the
 * start, and its deployment answers 503 `DATA_SOURCE_UNAVAILABLE` while `/readyz` reports `invalid configuration`.
 * The driver's words, without URLs or passwords, are the error's `reason` for the log.
 */
export function unconfiguredSource(
  type: DataSourceType,
  dialect: Dialect,
  deploymentId: number | undefined,
  cause: unknown,
): DataSource {
  const reason = redact((cause as Error)?.message ?? String(cause))
  const refuse = () => new DataSourceUnavailableError(deploymentId, reason, 'invalid configuration')
  return {
    type,
    dialect,
    async connect() {
      throw refuse()
    },
    async query() {
      throw refuse()
    },
    async health() {
      return { ok: false, error: 'invalid configuration' }
    },
    dataStamp: () => undefined,
    async close() {},
  }
}
