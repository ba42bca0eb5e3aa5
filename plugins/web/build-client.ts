/**
 * Bundles the embed pages' front end (`client/main.tsx`, Preact) with Bun's bundler and prints the result as JSON
 * on stdout: `{ files: [{ name, type, body }] }`. Run as a child process by the `bundle-web-assets` macro, because a
 * macro cannot call `Bun.build` while the bundler that runs it is busy.
 */
import { join } from 'node:path'

const result = await Bun.build({
  entrypoints: [join(import.meta.dir, 'client', 'main.tsx')],
  target: 'browser',
  format: 'esm',
  minify: true,
  sourcemap: 'none',
  // Nothing from the build machine's environment may leak into what browsers download.
  env: 'disable',
  jsx: { runtime: 'automatic', importSource: 'preact', development: false },
  define: { 'process.env.NODE_ENV': '"production"' },
})
if (!result.success) {
  process.stderr.write(result.logs.map((log) => String(log)).join('\n'))
  process.exit(1)
}

const files: Array<{ name: string; type: string; body: string }> = []
for (const output of result.outputs) {
  const name = output.path.replace(/^.*[\\/]/, '')
  files.push({ name, type: output.type, body: await output.text() })
}
process.stdout.write(JSON.stringify({ files }))
