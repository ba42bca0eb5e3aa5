/** The extension keyword that carries a schema's name through the OpenAPI generator to the finished document. */
export const SCHEMA_NAME = 'x-schema-name'

/**
 * The schema options that name a schema where it is declared (`t.Object({...}, named('ToolCall'))`): every copy made
 * of it afterwards (`t.Optional(ToolCall)` copies) carries the name too, so the document refers to one named type
 * wherever it appears, where a name added later reached only the exported schema itself.
 */
export const named = (name: string) => ({ [SCHEMA_NAME]: name })
