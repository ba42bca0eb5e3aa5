import { describe, expect, it } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parse } from 'yaml'

const root = join(import.meta.dir, '..', '..')

describe('docker-compose.yml', () => {
  it('runs the service with its database on a volume and a health check', () => {
    const compose = parse(readFileSync(join(root, 'docker-compose.yml'), 'utf8')) as Record<string, any>
    const service = compose.services.service
    expect(service.build).toBe('.')
    expect(service.ports).toContain('4000:4000')
    const [volume, mountPoint] = (service.volumes[0] as string).split(':')
    expect(Object.keys(compose.volumes)).toContain(volume)
    expect(service.environment.DB_PATH.startsWith(`${mountPoint}/`)).toBe(true)
    expect(service.healthcheck.test).toEqual(['CMD', '/usr/local/bin/service', 'healthcheck', '--ready'])
  })
})

describe('Dockerfile', () => {
  it('builds the binary in one stage and runs it as a non-root user in a slim image', () => {
    const lines = readFileSync(join(root, 'Dockerfile'), 'utf8').split('\n')
    const stages = lines.filter((line) => line.startsWith('FROM '))
    expect(stages).toHaveLength(2)
    expect(stages[0]).toContain('AS build')
    expect(stages[1]).toContain('slim')
    expect(lines).toContain('RUN npm run build')
    const runStage = lines.slice(lines.indexOf(stages[1]))
    expect(runStage.some((line) => /^USER (?!root\b)\w+/.test(line))).toBe(true)
    expect(runStage.some((line) => line.startsWith('COPY --from=build /app/dist/service '))).toBe(true)
    expect(runStage.some((line) => line.startsWith('HEALTHCHECK ') && line.includes('"healthcheck"'))).toBe(true)
  })
})
