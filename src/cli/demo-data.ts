import { parseArgs } from 'node:util'
import { demoDataPath, ensureDemoDataFile } from '../../plugins/semantic/demo/demo-data-file'
import { exportDemoData } from '../../plugins/semantic/demo/demo-data-export'
import { serverDemoTarget, sqliteDemoTarget } from '../../plugins/semantic/demo/demo-targets'
import { CliError, type CliIo } from './cli-io'

export const DEMO_DATA_USAGE = `Usage: service demo-data --into <postgres://... | mysql://... | file.db | file.duckdb>

Writes the demo tables (regions, customers, products, orders, line_items) into a database, so a deployment with
model: demo and that dataSource answers with the same numbers as the built-in demo data. Run it again to replace
them; tables it did not write are never touched (it stops if one has a demo table's name).`

/** `demo-data --into <target>`: the demo data, copied in batches with a progress line. */
export async function demoDataCommand(args: string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({ args, options: { into: { type: 'string' }, help: { type: 'boolean', short: 'h' } }, strict: true })
  if (values.help) {
    io.out(`${DEMO_DATA_USAGE}\n`)
    return 0
  }
  const into = values.into
  if (!into) throw new CliError(`--into is required\n\n${DEMO_DATA_USAGE}`)
  const startedAt = performance.now()
  const file = ensureDemoDataFile(demoDataPath({ dbPath: ':memory:', demoDataPath: process.env.DEMO_DATA_PATH || undefined }))
  const target = /^(postgres|postgresql|mysql|mariadb):\/\//i.test(into)
    ? await serverDemoTarget(into.replace(/^mariadb:/i, 'mysql:').replace(/^postgresql:/i, 'postgres:'))
    : /\.duckdb$/i.test(into)
      ? await (await import('../../plugins/semantic/demo/duckdb-demo-target')).duckdbDemoTarget(into)
      : sqliteDemoTarget(into)
  let shown = ''
  try {
    const counts = await exportDemoData(file.path, target, {
      progress: (table, written, total) => {
        const line = `demo-data: ${table} ${written}/${total}`
        if (io.interactive) io.err(`\r${line}\u001b[K`)
        else if (written === total || Math.floor((written / total) * 4) !== Math.floor(((written - 1_000) / total) * 4)) io.err(`${line}\n`)
        shown = line
      },
    })
    if (io.interactive && shown) io.err('\n')
    const summary = Object.entries(counts).map(([table, rows]) => `${table} ${rows}`).join(', ')
    io.out(`Wrote the demo tables (${summary}) in ${((performance.now() - startedAt) / 1000).toFixed(1)} s\n`)
    return 0
  } finally {
    await target.close()
  }
}
