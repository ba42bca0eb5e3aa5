import { describe, expect, it } from 'bun:test'
import { MODEL_DESCRIPTION_MAX_CHARS, SYSTEM_PROMPT, systemPrompt } from '../../../plugins/agent/system-prompt'

const member = (cube: string, name: string, type: string) => ({ name: `${cube}.${name}`, title: name, type })
const cube = (name: string, members: number) => ({
  name,
  title: name,
  measures: [member(name, 'count', 'count')],
  dimensions: Array.from({ length: members }, (_, index) => member(name, `column_${index}`, 'string')),
  joins: [],
})

describe("the system prompt's model description", () => {
  it('lists a model too large for the prompt by its cubes, and leaves its members to serviceMeta', () => {
    const cubes = Array.from({ length: 200 }, (_, index) => cube(`table_${index}`, 20))
    const prompt = systemPrompt({ cubes })
    expect(prompt.length - SYSTEM_PROMPT.length).toBeLessThan(MODEL_DESCRIPTION_MAX_CHARS)
    expect(prompt).toContain('- table_199 "table_199"')
    expect(prompt).not.toContain('table_0.column_0')
    expect(prompt).toContain('call serviceMeta with searchQuery')
  })

  it('lists the cubes that fit of a model too large to list them all', () => {
    const cubes = Array.from({ length: 3000 }, (_, index) => cube(`table_${index}`, 1))
    const prompt = systemPrompt({ cubes })
    expect(prompt.length - SYSTEM_PROMPT.length).toBeLessThan(MODEL_DESCRIPTION_MAX_CHARS)
    expect(prompt).toContain('- table_0 "table_0"')
    expect(prompt).not.toContain('- table_2999 "table_2999"')
    expect(prompt).toMatch(/Its members and \d+ more cubes are too many to list here/)
  })

  it('lists every member of a model that fits', () => {
    const prompt = systemPrompt({ cubes: [cube('visits', 3)] })
    expect(prompt).toContain('  measures: visits.count "count" (count)')
    expect(prompt).toContain('visits.column_2 "column_2" (string)')
  })

  it('says when the caller may query nothing, and when the model could not be read', () => {
    expect(systemPrompt({ cubes: [] })).toEndWith(
      "This user may query no cubes of this deployment's model: say so, and answer no numbers.",
    )
    expect(systemPrompt({ error: 'the source is down' })).toContain('call serviceMeta to learn it')
    expect(systemPrompt(undefined)).toContain('call serviceMeta to learn it')
  })
})
