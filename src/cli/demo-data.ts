import { demoDataPath, ensureDemoDataFile } from '../../plugins/semantic/demo/demo-data-file'
import { exportDemoData } from '../../plugins/semantic/demo/demo-data-export'
import { serverDemoTarget, sqliteDemoTarget } from '../../plugins/semantic/demo/demo-targets'
import { redact } from '../../plugins/semantic/sources/data-source'
import { requiredString, UsageError, type CliCommand } from './command'

/** `service demo-data --into <target>`: the demo data, copied in batches with a progress line. */
export const demoDataCommand: CliCommand = {
  name: 'demo-data',
  summary: 'Write the demo tables into a Postgres, MySQL/MariaDB, DuckDB or SQLite database.',
  usage: 'service demo-data --into <postgres://... | mysql://... | file.duckdb | file.db>',
  details: `Writes regions, customers, products, orders and line_items (and demo_meta, which marks them as its own), so a
deployment with model: demo and that dataSource answers with the built-in demo data's numbers. Run it again to
replace them; a table of one of those names that it did not write stops it before anything changes.`,
  options: { into: { type: 'string' } },
  async run(args, io) {
    const into = requiredString(args, 'into')
    // A file is SQLite or DuckDB by its name: any other name (`shop.csv`) is a mistake, not a SQLite file to write.
    // The value is not repeated: a mistyped connection string may hold a password.
    const url = /^[a-z][a-z0-9+.-]*:\/\//i.test(into)
    if (url ? !/^(postgres|postgresql|mysql|mariadb):\/\//i.test(into) : !/\.(db|sqlite|sqlite3|duckdb)$/i.test(into))
      throw new UsageError('--into: expected a postgres:// or mysql:// URL, or a .db, .sqlite or .duckdb file')
    const startedAt = performance.now()
    const file = ensureDemoDataFile(
      demoDataPath({ dbPath: ':memory:', demoDataPath: io.env.DEMO_DATA_PATH || undefined }),
    )
    try {
      const target = /^(postgres|postgresql|mysql|mariadb):\/\//i.test(into)
        ? await serverDemoTarget(into.replace(/^mariadb:/i, 'mysql:').replace(/^postgresql:/i, 'postgres:'))
        : /\.duckdb$/i.test(into)
          ? await (await import('../../plugins/semantic/demo/duckdb-demo-target')).duckdbDemoTarget(into)
          : sqliteDemoTarget(into)
      try {
        const counts = await exportDemoData(file.path, target, {
          // A line per quarter of each table: readable in a terminal and in a CI log alike.
          progress: (table, written, total) => {
            const quarter = (count: number) => Math.floor((count / total) * 4)
            if (written === total || quarter(written) !== quarter(written - 1_000))
              io.err(`demo-data: ${table} ${written}/${total}\n`)
          },
        })
        const summary = Object.entries(counts)
          .map(([table, rows]) => `${table} ${rows}`)
          .join(', ')
        io.out(`Wrote the demo tables (${summary}) in ${((performance.now() - startedAt) / 1000).toFixed(1)} s\n`)
        return 0
      } finally {
        await target.close()
      }
    } catch (error) {
      // Driver messages can carry the URL; never print it.
      io.err(`demo-data failed: ${redact((error as Error).message ?? String(error))}\n`)
      return 1
    }
  },
}
