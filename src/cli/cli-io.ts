/** Where a subcommand writes (the real streams, or a buffer in tests). */
export interface CliIo {
  out(text: string): void
  err(text: string): void
  /** Whether stderr is a terminal (progress lines rewrite themselves there). */
  interactive: boolean
}

/** A usage or input problem: printed without a stack trace, exit code 2. */
export class CliError extends Error {}

export const processIo: CliIo = {
  out: (text) => void process.stdout.write(text),
  err: (text) => void process.stderr.write(text),
  interactive: Boolean(process.stderr.isTTY),
}
