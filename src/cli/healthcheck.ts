import type { CliCommand } from './command'

/** `service healthcheck` (also `service --healthcheck`): the container health probe, for images without curl. */
export const healthcheckCommand: CliCommand = {
  name: 'healthcheck',
  summary: 'Exit 0 when the server on PORT of this machine answers /healthz (or /readyz with --ready), 1 otherwise.',
  usage: 'service healthcheck [--ready]',
  details: 'Options:\n  --ready  ask /readyz (storage answers, not shutting down) instead of /healthz',
  options: { ready: { type: 'boolean' } },
  async run({ values }, io) {
    const { healthcheck } = await import('../server')
    return healthcheck(io.env, values.ready === true ? '/readyz' : '/healthz')
  },
}
