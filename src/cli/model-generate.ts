import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { generateModel, type GeneratedModel } from '../../plugins/semantic/semantic-model/model-generator'
import { redact } from '../../plugins/semantic/sources/data-source'
import { introspect } from '../../plugins/semantic/sources/introspect'
import { DEMO_MARKER_TABLE } from '../../plugins/semantic/demo/demo-data-export'
import { requiredString, UsageError, type CliCommand } from './command'

/** `service model generate --from <database> [--schema NAME] --out <folder>`. */
export const modelGenerateCommand: CliCommand = {
  name: 'model generate',
  summary: "Write Cube-style model files from a database's tables, columns and keys.",
  usage:
    'service model generate --from <postgres://... | mysql://... | file.duckdb | file.db> [--schema NAME] --out <folder> [--force]',
  details: `One cube per table with titles in words, a label (the column that names a row, or first and last name
joined), measures by what each column is (a count; distinct counts of what the table references; money summed and
averaged; a line's revenue from unit price and quantity; durations and sizes averaged and maxed, weights and
distances summed too; other numbers summed and averaged), a dimension per column, joins from foreign keys (a self-reference as a cube in its role, such as manager) or, for tables without
declared keys, from column names (marked inferred), synonyms for sales words and comments as descriptions. Ends with
what it inferred and what to check. The folder loads as a deployment's model without edits. --force overwrites model
files of the same names.`,
  options: {
    from: { type: 'string' },
    schema: { type: 'string' },
    out: { type: 'string' },
    force: { type: 'boolean' },
  },
  async run(args, io) {
    const from = requiredString(args, 'from')
    const out = requiredString(args, 'out')
    const schema = typeof args.values.schema === 'string' ? args.values.schema : undefined
    const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(from)?.[1]
    if (scheme !== undefined && !/^(postgres|postgresql|mysql|mariadb)$/i.test(scheme))
      throw new UsageError(
        `--from: ${scheme}:// is not a database this reads; give a postgres:// or mysql:// (mariadb://) URL, a .duckdb file or a SQLite file`,
      )
    if (scheme === undefined && !existsSync(from)) throw new UsageError(`--from: no database file at ${from}`)
    let generated: GeneratedModel
    try {
      // `demo-data`'s own bookkeeping table is no data to ask about.
      const tables = (await introspect(from, schema)).filter((table) => table.name !== DEMO_MARKER_TABLE)
      if (tables.length === 0)
        throw new UsageError(`--from: the database${schema ? ` (schema ${schema})` : ''} has no tables`)
      generated = generateModel(tables, {
        quoting: /^(mysql|mariadb):\/\//i.test(from) ? 'backquote' : 'double',
        sqlite: !/^[a-z]+:\/\//i.test(from) && !/\.duckdb$/i.test(from),
      })
    } catch (error) {
      if (error instanceof UsageError) throw error
      io.err(`model generate failed: ${redact((error as Error).message)}\n`)
      return 1
    }
    const files = generated.files
    mkdirSync(out, { recursive: true })
    const clashes = readdirSync(out).filter((name) => files.has(name))
    if (clashes.length > 0 && args.values.force !== true)
      throw new UsageError(`--out: ${clashes.join(', ')} already exist in ${out}; pass --force to overwrite`)
    for (const [name, text] of files) writeFileSync(join(out, name), text)
    io.out(`Wrote ${files.size} model files to ${out} (${[...files.keys()].join(', ')})\n`)
    if (generated.inferred.length > 0)
      io.out(`\nInferred:\n${generated.inferred.map((line) => `  - ${line}`).join('\n')}\n`)
    if (generated.check.length > 0)
      io.out(`\nPlease check:\n${generated.check.map((line) => `  - ${line}`).join('\n')}\n`)
    return 0
  },
}
