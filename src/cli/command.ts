import { parseArgs, type ParseArgsConfig } from 'node:util'

export type CommandOptions = NonNullable<ParseArgsConfig['options']>

/** The parsed command line of one subcommand. */
export interface CommandArgs {
  values: Record<string, string | boolean | string[] | boolean[] | undefined>
  positionals: string[]
}

/** Where a command writes, and the environment it reads: the process's own, or a test's. */
export interface CliIo {
  out(text: string): void
  err(text: string): void
  env: Record<string, string | undefined>
}

/**
 * One subcommand of the `service` binary. Adding one is a module exporting this shape plus one line in the table of
 * `src/cli/index.ts`. `run` resolves to the exit code, or to nothing when the command keeps the process running.
 */
export interface CliCommand {
  /** One or two words: `migrate`, `keys create`. */
  name: string
  summary: string
  /** The synopsis, e.g. `service keys create --account NAME [--admin]`. */
  usage: string
  /** Lines describing the options, printed under the synopsis by `--help`. */
  details?: string
  options?: CommandOptions
  /** Whether the command takes positional arguments (otherwise one is a usage error). */
  positionals?: boolean
  run(args: CommandArgs, io: CliIo): Promise<number | void>
}

/** A wrong command line: the message is shown with a pointer to `--help`, and the exit code is 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'UsageError'
  }
}

/** Parses a subcommand's arguments with `node:util`'s parser, strict: an unknown or malformed option is a usage error. */
export function parseCommandArgs(command: CliCommand, argv: string[]): CommandArgs & { help: boolean } {
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      options: { ...command.options, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
      strict: true,
    })
    if (positionals.length > 0 && !command.positionals && !values.help)
      throw new UsageError(`Unexpected argument ${JSON.stringify(positionals[0])} for \`${command.name}\``)
    const { help, ...rest } = values
    return { values: rest, positionals, help: help === true }
  } catch (error) {
    if (error instanceof UsageError) throw error
    // node:util's messages name the option; its "To specify a positional argument..." advice does not apply here.
    throw new UsageError(((error as Error).message ?? String(error)).split('. To specify')[0])
  }
}

/** The help text of one command. */
export function commandHelp(command: CliCommand): string {
  return `Usage: ${command.usage}\n\n${command.summary}\n${command.details ? `\n${command.details.trimEnd()}\n` : ''}`
}

/** A string option that must be present. */
export function requiredString(args: CommandArgs, name: string): string {
  const value = args.values[name]
  if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`--${name} is required`)
  return value.trim()
}
