import { describe, expect, it } from 'bun:test'
import { webAssets } from '../../../plugins/web/assets'

/** What browsers download for any embed page or the front door, compressed as the service sends it. */
const BUDGET_BYTES = 120 * 1024

describe('the web bundle', () => {
  it('stays within 120 KB gzip for script and stylesheet together', () => {
    const script = Bun.gzipSync(new TextEncoder().encode(webAssets.script.body)).byteLength
    const style = Bun.gzipSync(new TextEncoder().encode(webAssets.style.body)).byteLength
    // Printed so a change that grows the bundle shows by how much.
    console.log(
      `web bundle: script ${(script / 1024).toFixed(1)} KB gzip, stylesheet ${(style / 1024).toFixed(1)} KB gzip`,
    )
    expect(script + style).toBeLessThanOrEqual(BUDGET_BYTES)
  })

  it('carries the chart library (uPlot) rather than hand-drawn SVG charts', () => {
    expect(webAssets.script.body).toContain('u-legend')
    expect(webAssets.style.body).toContain('.uplot')
  })
})
