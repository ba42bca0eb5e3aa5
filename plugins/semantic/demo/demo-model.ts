import { loadModel } from '../semantic-model/model-loader'
import type { SemanticModel } from '../semantic-model/semantic-model'
import devText from './demo-model-dev.yaml' with { type: 'text' }
import mainText from './demo-model.yaml' with { type: 'text' }
import { parseDemoModelFiles } from './parse-demo-model' with { type: 'macro' }

// Parsed when this file is transpiled (a Bun macro), so starting the server parses no YAML for the demo.
const parsed = parseDemoModelFiles()

/**
 * The built-in demo model, embedded in the binary (its text, and its files already parsed). The deployment's
 * default branch gets the `main` variant; every other branch gets `dev`, which adds `orders.cancelled_count` and
 * `orders.cancellation_rate`.
 */
export function loadDemoModel(variant: 'main' | 'dev'): SemanticModel {
  const base = [{ file: 'demo/demo-model.yaml', text: mainText, parsed: parsed.main }]
  return variant === 'main'
    ? loadModel('demo (main)', base)
    : loadModel('demo (dev)', base, [{ file: 'demo/demo-model-dev.yaml', text: devText, parsed: parsed.dev }])
}
