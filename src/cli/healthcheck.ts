import type { CliCommand } from './command'

/** `service healthcheck` (also `service --healthcheck`): the container health probe, for images without curl. */
export const healthcheckCommand: CliCommand = {
  name: 'healthcheck',
  summary: 'Exit 0 when the server on PORT of this machine answers /healthz, 1 otherwise.',
  usage: 'service healthcheck',
  async run(_args, io) {
    const { healthcheck } = await import('../server')
    return healthcheck(io.env)
  },
}
