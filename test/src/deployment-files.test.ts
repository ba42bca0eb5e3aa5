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

describe('docker-compose.yml, profile scale-out', () => {
  // Docker is not available where the tests run: this checks the file's shape, not a running stack.
  const compose = parse(readFileSync(join(root, 'docker-compose.yml'), 'utf8'), { merge: true }) as Record<string, any>
  const services = compose.services as Record<string, any>
  const scaleOut = Object.entries(services).filter(([, service]) => service.profiles?.includes('scale-out'))
  const nodes = scaleOut.filter(([, service]) => service.image === services.service.image)
  const nginx = readFileSync(join(root, 'deploy', 'scale-out', 'nginx.conf'), 'utf8')
  const directives = (name: string) =>
    [...nginx.matchAll(new RegExp(`^\\s*${name}\\s+([^;]+);`, 'gm'))].map((match) => match[1].trim())

  it('leaves the default profile as it was: one node on SQLite, and nothing else starts with it', () => {
    const defaults = Object.entries(services).filter(([, service]) => !service.profiles)
    expect(defaults.map(([name]) => name)).toEqual(['service'])
    expect(services.service.environment.DATABASE_URL).toBeUndefined()
    expect(services.service.environment.REDIS_URL).toBeUndefined()
  })

  it('runs two service nodes on one Postgres and one Redis, each checked for readiness', () => {
    expect(nodes.map(([name]) => name)).toEqual(['node-1', 'node-2'])
    const postgres = services.postgres
    const database = new URL(
      nodes[0][1].environment.DATABASE_URL.replaceAll('${POSTGRES_PASSWORD:-service}', 'service'),
    )
    expect(database.protocol).toBe('postgres:')
    expect(database.hostname).toBe('postgres')
    expect(decodeURIComponent(database.username)).toBe(postgres.environment.POSTGRES_USER)
    expect(database.pathname).toBe(`/${postgres.environment.POSTGRES_DB}`)
    expect(nodes[0][1].environment.DATABASE_URL).toContain(`:${postgres.environment.POSTGRES_PASSWORD}@`)
    expect(new URL(nodes[0][1].environment.REDIS_URL).hostname).toBe('redis')
    for (const [name, node] of nodes) {
      expect(node.environment, name).toEqual(nodes[0][1].environment)
      expect(node.build, name).toBe('.')
      expect(node.ports, `${name} is reached through the load balancer only`).toBeUndefined()
      expect(node.healthcheck.test).toEqual(['CMD', '/usr/local/bin/service', 'healthcheck', '--ready'])
      expect(node.depends_on.postgres.condition, name).toBe('service_healthy')
      expect(node.depends_on.redis.condition, name).toBe('service_healthy')
    }
    // The second node starts once the first is ready: one node applies the migrations and the bootstrap.
    expect(services['node-2'].depends_on['node-1'].condition).toBe('service_healthy')
    expect(postgres.healthcheck.test).toContain('pg_isready')
    expect(services.redis.healthcheck.test).toEqual(['CMD', 'redis-cli', 'ping'])
    expect(Object.keys(compose.volumes)).toContain(postgres.volumes[0].split(':')[0])
  })

  it('puts the nodes behind nginx, round robin with WebSocket upgrades and unbuffered streams', () => {
    const balancer = services['load-balancer']
    expect(balancer.image).toStartWith('nginx:')
    expect(balancer.profiles).toEqual(['scale-out'])
    // Not the single node's port: both profiles can run side by side.
    expect(balancer.ports).toEqual(['8080:80'])
    const [file, mounted] = (balancer.volumes[0] as string).split(':')
    expect(join(root, file)).toBe(join(root, 'deploy', 'scale-out', 'nginx.conf'))
    expect(mounted).toBe('/etc/nginx/conf.d/default.conf')
    for (const [name] of nodes) expect(balancer.depends_on[name].condition).toBe('service_healthy')

    // The upstream names every node on its PORT, and nothing that pins a client to one node.
    const upstream = /upstream\s+(\w+)\s*\{([^}]*)\}/.exec(nginx)!
    const servers = [...upstream[2].matchAll(/^\s*server\s+([^\s;]+)/gm)].map((match) => match[1])
    expect(servers).toEqual(nodes.map(([name, node]) => `${name}:${node.environment.PORT}`))
    expect(upstream[2]).not.toMatch(/^\s*(ip_hash|hash|sticky|least_conn|random)\b/m)
    expect(directives('proxy_pass')).toEqual([`http://${upstream[1]}`])
    expect(directives('listen')).toEqual(['80'])
    expect(directives('proxy_http_version')).toEqual(['1.1'])
    expect(directives('proxy_set_header')).toEqual(
      expect.arrayContaining(['Upgrade $http_upgrade', 'Connection $connection_upgrade']),
    )
    expect(nginx).toMatch(/map \$http_upgrade \$connection_upgrade \{\s*default\s+upgrade;/)
    expect(directives('proxy_buffering')).toEqual(['off'])
    // Streams and idle sockets outlive a turn's longest run.
    const [timeout] = directives('proxy_read_timeout')
    expect(timeout).toMatch(/^\d+h$/)
    // Every brace closes: a typo that nginx would refuse at start.
    expect(nginx.split('{').length).toBe(nginx.split('}').length)
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

  it('sets the runtime settings the server would otherwise re-execute itself for, with the values it uses', async () => {
    const { RUNTIME_SETTINGS } = await import('../../src/runtime-tuning')
    const lines = readFileSync(join(root, 'Dockerfile'), 'utf8').split('\n')
    const runStage = lines.slice(lines.findLastIndex((line) => line.startsWith('FROM ')))
    const env = runStage.filter((line) => line.startsWith('ENV ')).join(' ')
    for (const [name, value] of Object.entries(RUNTIME_SETTINGS)) expect(env).toContain(` ${name}=${value}`)
  })
})
