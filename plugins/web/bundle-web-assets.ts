import { createHash } from 'node:crypto'
import { join } from 'node:path'

/** One file the embed pages load: named by its content hash, so it can be cached for ever. */
export interface WebAsset {
  name: string
  contentType: string
  body: string
  /** Subresource Integrity value (`sha384-...`). */
  integrity: string
}

export interface WebAssets {
  script: WebAsset
  style: WebAsset
}

function asset(kind: 'js' | 'css', body: string): WebAsset {
  const digest = createHash('sha384').update(body).digest()
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 16)
  return {
    name: `embed-${hash}.${kind}`,
    contentType: kind === 'js' ? 'text/javascript; charset=utf-8' : 'text/css; charset=utf-8',
    body,
    integrity: `sha384-${digest.toString('base64')}`,
  }
}

/**
 * Builds the front end and returns it as plain data. Imported as a Bun macro (`with { type: 'macro' }`) from
 * `assets.ts`, so it runs when that file is transpiled: at start from source (`npm start`, `npm test`) and at
 * compile time for the binary (`npm run build`), which then carries the result inlined. No generated file exists.
 */
export function bundleWebAssets(): WebAssets {
  const child = Bun.spawnSync([process.execPath, 'run', join(import.meta.dir, 'build-client.ts')], {
    cwd: join(import.meta.dir, '..', '..'),
    stdout: 'pipe',
    stderr: 'pipe',
  })
  if (child.exitCode !== 0) throw new Error(`Building the embed pages failed:\n${child.stderr.toString()}`)
  const { files } = JSON.parse(child.stdout.toString()) as { files: Array<{ name: string; body: string }> }
  const script = files.find((file) => file.name.endsWith('.js'))
  const style = files.find((file) => file.name.endsWith('.css'))
  if (!script || !style)
    throw new Error(
      `Building the embed pages gave ${files.map((file) => file.name).join(', ')}: expected one .js and one .css`,
    )
  return { script: asset('js', script.body), style: asset('css', style.body) }
}
