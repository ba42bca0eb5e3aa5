import { BootstrapError } from '../bootstrap/load'
import { NewerDatabaseError } from '../../db/sqlite/migrate'
import { DatabaseUnreachableError } from '../../db/postgres/postgres-connect'
import { ModelError } from '../../plugins/semantic/errors'
import { version } from '../../package.json'
import { ConfigError } from '../../lib/config'
import { StartupError } from '../startup-error'
import { checkConfigCommand } from './check-config'
import { demoDataCommand } from './demo-data'
import { modelGenerateCommand } from './model-generate'
import { commandHelp, parseCommandArgs, UsageError, type CliCommand, type CliIo } from './command'
import { healthcheckCommand } from './healthcheck'
import { KeyCreationError, keysCreateCommand } from './keys-create'
import { migrateCommand } from './migrate'
import { serveCommand } from './serve'

/** Every subcommand, in the order `--help` lists them. A new one is a module and a line here. */
export const commands: readonly CliCommand[] = [
  serveCommand,
  migrateCommand,
  checkConfigCommand,
  keysCreateCommand,
  healthcheckCommand,
  demoDataCommand,
  modelGenerateCommand,
]

/** Errors whose message is the whole story for the operator: printed without a stack, exit code 1. */
const EXPECTED_ERRORS = [
  ConfigError,
  BootstrapError,
  StartupError,
  ModelError,
  KeyCreationError,
  NewerDatabaseError,
  DatabaseUnreachableError,
]

export function globalHelp(): string {
  const width = Math.max(...commands.map((command) => command.name.length)) + 2
  return [
    `Usage: service [command] [options]`,
    '',
    `Analytics chat streaming and embed session service ${version}.`,
    '',
    'Commands:',
    ...commands.map((command) => `  ${command.name.padEnd(width)}${command.summary}`),
    '',
    'Options:',
    "  -h, --help     show this help, or a command's with `service <command> --help`",
    '  -v, --version  print the version',
    '',
    'Configuration comes from environment variables: PORT, HOST, DB_PATH, BOOTSTRAP_FILE, LLM_BASE_URL, LLM_API_KEY,',
    'LLM_MODEL, LOG_LEVEL, LOG_FORMAT, CORS_ORIGINS, RATE_LIMIT_API_KEY_PER_SECOND, ... (see docs/configuration.md).',
    '',
  ].join('\n')
}

/** The command named by the first words of `argv` (the longest name that matches), and the arguments after it. */
function findCommand(argv: string[]): { command: CliCommand; rest: string[] } | undefined {
  let best: { command: CliCommand; rest: string[] } | undefined
  for (const command of commands) {
    const words = command.name.split(' ')
    if (
      words.every((word, index) => argv[index] === word) &&
      words.length > (best?.command.name.split(' ').length ?? 0)
    )
      best = { command, rest: argv.slice(words.length) }
  }
  return best
}

const processIo: CliIo = {
  out: (text) => void process.stdout.write(text),
  err: (text) => void process.stderr.write(text),
  env: process.env,
}

/**
 * Runs the command line `argv` (without the executable and script): the exit code, or nothing when the command
 * keeps running (the server). Never throws: every failure becomes a message on stderr and a non-zero code.
 */
export async function runCli(argv: string[], io: CliIo = processIo): Promise<number | void> {
  try {
    const first = argv[0]
    if (first === undefined || first.startsWith('-')) {
      if (argv.includes('--help') || argv.includes('-h') || first === 'help') return print(io, globalHelp())
      if (first === '--version' || first === '-v') return print(io, `${version}\n`)
      // The image's HEALTHCHECK and older scripts call the probe as a flag.
      if (first === '--healthcheck') return await healthcheckCommand.run({ values: {}, positionals: [] }, io)
      return await execute(serveCommand, argv, io)
    }
    if (first === 'help') {
      const named = findCommand(argv.slice(1))
      return print(io, named ? commandHelp(named.command) : globalHelp())
    }
    const found = findCommand(argv)
    if (!found) {
      const group = commands.filter((command) => command.name.startsWith(`${first} `)).map((command) => command.name)
      throw new UsageError(
        group.length > 0
          ? `\`${first}\` needs a subcommand: ${group.join(', ')}`
          : `Unknown command ${JSON.stringify(first)}`,
      )
    }
    return await execute(found.command, found.rest, io)
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(
        `${error.message}\nRun \`service --help\` for the commands and \`service <command> --help\` for their options.\n`,
      )
      return 2
    }
    if (EXPECTED_ERRORS.some((type) => error instanceof type)) {
      io.err(`${(error as Error).message}\n`)
      return 1
    }
    io.err(`Failed: ${(error as Error)?.stack ?? String(error)}\n`)
    return 1
  }
}

async function execute(command: CliCommand, argv: string[], io: CliIo): Promise<number | void> {
  const args = parseCommandArgs(command, argv)
  if (args.help) return print(io, commandHelp(command))
  return command.run(args, io)
}

function print(io: CliIo, text: string): number {
  io.out(text)
  return 0
}
