import { NotFoundError } from '../../lib/errors'
import benchmarks from '../../docs/benchmarks.md' with { type: 'text' }
import chatApi from '../../docs/chat-api.md' with { type: 'text' }
import configuration from '../../docs/configuration.md' with { type: 'text' }
import connectingADatabase from '../../docs/connecting-a-database.md' with { type: 'text' }
import embedding from '../../docs/embedding.md' with { type: 'text' }
import managementApi from '../../docs/management-api.md' with { type: 'text' }
import operating from '../../docs/operating.md' with { type: 'text' }
import severalNodes from '../../docs/several-nodes.md' with { type: 'text' }
import testing from '../../docs/testing.md' with { type: 'text' }
import writingAModel from '../../docs/writing-a-model.md' with { type: 'text' }

/**
 * The chapters of `docs/`, by file name without `.md`, imported as text like the README, so the binary serves the
 * docs of its own build (at `/docs/<name>`), offline too.
 */
export const DOCS: Readonly<Record<string, string>> = {
  configuration,
  'connecting-a-database': connectingADatabase,
  'writing-a-model': writingAModel,
  'chat-api': chatApi,
  embedding,
  'management-api': managementApi,
  'several-nodes': severalNodes,
  operating,
  benchmarks,
  testing,
}

/** The chapter a `/docs/{name}` address names (`name` or `name.md`), or 404 `DOC_NOT_FOUND`. */
export function docChapter(name: string): { name: string; markdown: boolean; text: string } {
  const markdown = name.endsWith('.md')
  const chapter = markdown ? name.slice(0, -3) : name
  const text = Object.hasOwn(DOCS, chapter) ? DOCS[chapter] : undefined
  if (text === undefined)
    throw new NotFoundError(
      `No chapter named ${JSON.stringify(chapter)} (chapters: ${Object.keys(DOCS).join(', ')})`,
      'DOC_NOT_FOUND',
    )
  return { name: chapter, markdown, text }
}
