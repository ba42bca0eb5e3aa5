// Keep this file tiny: it is the macro's call site, and Bun runs the macro whenever it transpiles this file.
import { bundleWebAssets } from './bundle-web-assets' with { type: 'macro' }
import type { WebAssets } from './bundle-web-assets'

/** The embed pages' script and stylesheet, built by Bun's bundler when this module is transpiled. */
export const webAssets: WebAssets = bundleWebAssets()
