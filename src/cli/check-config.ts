import { loadBootstrapFile } from '../../db/bootstrap/load'
import { loadConfig } from '../config'
import type { CliCommand } from './command'

/**
 * `service check-config`: the checks a start makes before it touches the database (the environment, then the
 * bootstrap file), without starting. A problem throws `ConfigError` or `BootstrapError`, whose message names the
 * variable or the path in the file, and the process exits 1.
 */
export const checkConfigCommand: CliCommand = {
  name: 'check-config',
  summary: 'Validate the environment variables and the bootstrap file, then exit (1 naming each problem).',
  usage: 'service check-config [--bootstrap FILE]',
  details: 'Options:\n  --bootstrap FILE  the bootstrap file to check (default: BOOTSTRAP_FILE)',
  options: { bootstrap: { type: 'string' } },
  async run({ values }, io) {
    const config = loadConfig(io.env)
    const bootstrapFile = typeof values.bootstrap === 'string' ? values.bootstrap : config.bootstrapFile
    const lines = [
      `environment: ok (port ${config.port}, database ${config.dbPath}, agent ${config.llm ? `llm ${config.llm.model}` : 'offline analyst'})`,
    ]
    if (bootstrapFile) {
      const file = loadBootstrapFile(bootstrapFile)
      const deployments = file.accounts.reduce((sum, account) => sum + (account.deployments?.length ?? 0), 0)
      lines.push(`bootstrap file ${bootstrapFile}: ok (${file.accounts.length} account(s), ${deployments} deployment(s))`)
    } else lines.push('bootstrap file: none (the built-in demo bootstrap applies to an empty database)')
    io.out(`${lines.join('\n')}\n`)
    return 0
  },
}
