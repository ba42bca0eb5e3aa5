import { Kind, type TSchema } from '@sinclair/typebox'
import * as chat from '../../plugins/chat/model'
import * as embed from '../../plugins/embed/model'
import * as management from '../../plugins/management/model'
import * as semantic from '../../plugins/semantic/model'
import { SCHEMA_NAME } from '../../lib/schema-name'

/** The modules whose exported schemas are the API's named types (the same the TypeScript client is written from). */
const MODULES: Array<Record<string, unknown>> = [chat, embed, management, semantic]

export { SCHEMA_NAME } from '../../lib/schema-name'

let named = false

/**
 * Marks every exported object or union schema of the model modules with its export name (`FoldersListResponse`,
 * `ChatRequest`, ...), once. The generator copies the keyword wherever the schema appears; `finishDocument` then
 * puts each named schema once under `components.schemas` and refers to it there, so the document names the types
 * the specification names. A schema exported under two names keeps the first. A copy made where a module was loaded
 * (`t.Optional(ToolCall)` makes one) is not marked here: a schema copied so is named where it is declared
 * (`named` in lib/schema-name.ts).
 */
export function nameSchemas(): void {
  if (named) return
  named = true
  for (const module of MODULES)
    for (const [name, value] of Object.entries(module)) {
      if (!/^[A-Z]/.test(name) || typeof value !== 'object' || value === null || !(Kind in value)) continue
      const schema = value as TSchema & Record<string, unknown>
      // Objects, unions of objects (the stream's lines) and enums (unions of literals); not a scalar such as `Id`.
      const members = Array.isArray(schema.anyOf) ? (schema.anyOf as Array<Record<string, unknown>>) : undefined
      const composite =
        schema.type === 'object' ||
        (members !== undefined && members.every((member) => member.type === 'object' || 'const' in member))
      if (!composite || schema[SCHEMA_NAME] !== undefined) continue
      schema[SCHEMA_NAME] = name
    }
}
