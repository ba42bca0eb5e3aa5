import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describeProblem, type ModelProblem } from '../errors'
import { parseModelFile } from '../semantic-model/model-loader'
import type { ParsedFile } from '../semantic-model/raw-model'

export const DEMO_FILES = { main: 'demo/demo-model.yaml', dev: 'demo/demo-model-dev.yaml' } as const

/**
 * Parses and checks the built-in demo model's files. Imported as a Bun macro (`with { type: 'macro' }`), so it runs
 * when `demo-model.ts` is transpiled (at start from source, at compile time for the binary) and the parsed files are
 * inlined as data: a start pays nothing for YAML parsing, which was a third of its time. A broken demo file fails the
 * build.
 */
export function parseDemoModelFiles(): { main: ParsedFile; dev: ParsedFile } {
  const parse = (file: string): ParsedFile => {
    const problems: ModelProblem[] = []
    const text = readFileSync(join(import.meta.dir, '..', file), 'utf8')
    const parsed = parseModelFile({ file, text }, problems)
    if (!parsed) throw new Error(`The built-in demo model is invalid:\n${problems.map(describeProblem).join('\n')}`)
    return parsed
  }
  return { main: parse(DEMO_FILES.main), dev: parse(DEMO_FILES.dev) }
}
