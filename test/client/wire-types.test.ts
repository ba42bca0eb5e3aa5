import { describe, expect, it } from 'bun:test'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type * as Wire from '../../client/wire-types'
import type { ChatRequest, StreamLine } from '../../plugins/chat/model'
import type { GenerateSessionBody } from '../../plugins/embed/model'
import type { CreateReportInput, Report, ReportsListResponse } from '../../plugins/management/model'
import type { SqlResult } from '../../plugins/semantic/model'
import { generateWireTypes } from '../../src/codegen/wire-types'

const clientDir = join(import.meta.dir, '..', '..', 'client')

// Checked by `npm run typecheck`: the generated types and the server's schema types accept the same values.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false
const sameTypes: [
  Same<Wire.GenerateSessionBody, GenerateSessionBody>,
  Same<Wire.ChatRequest, ChatRequest>,
  Same<Wire.StreamLine, StreamLine>,
  Same<Wire.Report, Report>,
  Same<Wire.CreateReportInput, CreateReportInput>,
  Same<Wire.ReportsListResponse, ReportsListResponse>,
  Same<Wire.SqlResult, SqlResult>,
] = [true, true, true, true, true, true, true]

describe('client/wire-types.ts', () => {
  it('is what the server schemas generate today (run `npm run generate:client` after changing a schema)', () => {
    for (const [path, text] of generateWireTypes()) expect(readFileSync(join(clientDir, path), 'utf8')).toBe(text)
    expect(sameTypes.every(Boolean)).toBe(true)
  })

  it('leaves the client folder standing on its own: no import from outside it', () => {
    for (const file of readdirSync(clientDir, { recursive: true, encoding: 'utf8' }).filter((name) =>
      name.endsWith('.ts'),
    )) {
      const text = readFileSync(join(clientDir, file), 'utf8')
      const specifiers = [...text.matchAll(/\b(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g)].map((match) => match[1])
      for (const specifier of specifiers)
        expect({ file, specifier, local: specifier.startsWith('./') }).toEqual({ file, specifier, local: true })
    }
  })
})
