import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { generateModelFiles } from '../../plugins/semantic/model/model-generator'
import { introspect } from '../../plugins/semantic/sources/introspect'
import { CliError, type CliIo } from './cli-io'

export const MODEL_GENERATE_USAGE = `Usage: service model generate --from <postgres://... | mysql://... | file.db> [--schema NAME] --out <folder>

Writes Cube-style model files from a database's tables: one cube per table, a count measure, sums of numeric
columns that are not keys, a dimension per column and joins from foreign keys. The folder loads as a deployment's
model without edits; refine titles, descriptions and access policies afterwards.`

/** `model generate --from <database> [--schema NAME] --out <folder>`. */
export async function modelGenerateCommand(args: string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { from: { type: 'string' }, schema: { type: 'string' }, out: { type: 'string' }, force: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
    strict: true,
  })
  if (values.help) {
    io.out(`${MODEL_GENERATE_USAGE}\n`)
    return 0
  }
  if (!values.from || !values.out) throw new CliError(`--from and --out are required\n\n${MODEL_GENERATE_USAGE}`)
  if (!/^[a-z]+:\/\//i.test(values.from) && !existsSync(values.from)) throw new CliError(`--from: no database file at ${values.from}`)
  const tables = await introspect(values.from, values.schema)
  if (tables.length === 0) throw new CliError(`--from: the database${values.schema ? ` (schema ${values.schema})` : ''} has no tables`)
  const files = generateModelFiles(tables)
  mkdirSync(values.out, { recursive: true })
  const clashes = readdirSync(values.out).filter((name) => files.has(name))
  if (clashes.length > 0 && !values.force) throw new CliError(`--out: ${clashes.join(', ')} already exist in ${values.out}; pass --force to overwrite`)
  for (const [name, text] of files) writeFileSync(join(values.out, name), text)
  io.out(`Wrote ${files.size} model files to ${values.out} (${[...files.keys()].join(', ')})\n`)
  return 0
}
