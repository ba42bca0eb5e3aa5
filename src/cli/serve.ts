import type { CliCommand } from './command'

/** `service serve` (also `service` alone): the flags mirror the environment variables and win over them. */
export const serveCommand: CliCommand = {
  name: 'serve',
  summary: 'Start the HTTP and WebSocket server (the default command).',
  usage: 'service [serve] [--port N] [--host ADDRESS] [--db PATH] [--bootstrap FILE]',
  details: [
    'Options (each overrides its environment variable):',
    '  --port N          PORT, default 4000',
    '  --host ADDRESS    HOST, default 0.0.0.0',
    '  --db PATH         DB_PATH, default ./data/service.db (:memory: allowed); a SQLite file, used even when',
    '                    DATABASE_URL is set',
    '  --bootstrap FILE  BOOTSTRAP_FILE, applied at every start',
  ].join('\n'),
  options: {
    port: { type: 'string' },
    host: { type: 'string' },
    db: { type: 'string' },
    bootstrap: { type: 'string' },
  },
  async run({ values }, io) {
    const environment = { ...io.env }
    if (typeof values.port === 'string') environment.PORT = values.port
    if (typeof values.host === 'string') environment.HOST = values.host
    if (typeof values.db === 'string') {
      // As for migrate and keys create: a file named on the command line is the one meant.
      environment.DB_PATH = values.db
      delete environment.DATABASE_URL
    }
    if (typeof values.bootstrap === 'string') environment.BOOTSTRAP_FILE = values.bootstrap
    // Loaded on demand: `--help` and the other commands do not pay for the whole app.
    const { serve } = await import('../server')
    await serve(environment)
  },
}
