import { describe, expect, it } from 'bun:test'
import { resolveDataSources } from '../../../src/bootstrap/data-sources'
import { validateBootstrap } from '../../../src/bootstrap/load'

const file = (dataSource: unknown) =>
  validateBootstrap(
    {
      accounts: [
        { name: 'acme', plan: 'enterprise', deployments: [{ id: 3, name: 'Shop', model: 'demo', dataSource }] },
      ],
    },
    'bootstrap.yaml',
  )

const problemsOf = (run: () => unknown): string[] => {
  try {
    run()
  } catch (error) {
    return (error as { problems?: string[] }).problems ?? [(error as Error).message]
  }
  return []
}

describe('dataSource in the bootstrap file', () => {
  it('reads ${NAME} references from the environment and fills the defaults', () => {
    const sources = resolveDataSources(
      file({ type: 'postgres', url: '${SHOP_DATABASE_URL}', schema: 'analytics' }),
      { SHOP_DATABASE_URL: 'postgresql://reader:s3cret@db:5432/shop' },
      'bootstrap.yaml',
    )
    expect(sources.get(3)).toEqual({
      type: 'postgres',
      url: 'postgres://reader:s3cret@db:5432/shop',
      path: undefined,
      schema: 'analytics',
      maxConnections: 10,
      queryTimeoutMs: 30_000,
    })
  })

  it('stops the start naming the path when a referenced variable is missing, without echoing any value', () => {
    const problems = problemsOf(() =>
      resolveDataSources(file({ type: 'mysql', url: 'mysql://app:${DB_PASSWORD}@db/shop' }), {}, 'bootstrap.yaml'),
    )
    expect(problems).toEqual(['accounts[0].deployments[0].dataSource.url: environment variable DB_PASSWORD is not set'])
  })

  it("keeps a URL of the wrong kind or one that does not parse as the source's reason, without stopping the start", () => {
    const env = { URL: 'mysql://user:hunter2@db/shop' }
    const wrongScheme = resolveDataSources(file({ type: 'postgres', url: '${URL}' }), env, 'bootstrap.yaml')
    expect(wrongScheme.get(3)?.invalid).toBe('expected a postgres:// URL')
    const badPort = resolveDataSources(file({ type: 'postgres', url: 'postgres://db:99999/x' }), env, 'b')
    expect(badPort.get(3)?.invalid).toBe('not a valid URL')
    expect(resolveDataSources(file({ type: 'postgres', url: 'postgres://db:5432/x' }), env, 'b').get(3)?.invalid).toBe(
      undefined,
    )
  })

  it('refuses a path for a server source and a url for a file source', () => {
    const env = {}
    expect(problemsOf(() => resolveDataSources(file({ type: 'postgres', path: './x.db' }), env, 'b'))).toEqual([
      'accounts[0].deployments[0].dataSource.path: a postgres source takes a url, not a path',
      'accounts[0].deployments[0].dataSource.url: required for a postgres source',
    ])
    expect(problemsOf(() => resolveDataSources(file({ type: 'sqlite', url: 'postgres://db/x' }), env, 'b'))).toEqual([
      'accounts[0].deployments[0].dataSource.url: a sqlite source takes a path to its database file, not a url',
      'accounts[0].deployments[0].dataSource.path: required for a sqlite source',
    ])
  })

  it('refuses an unknown type or option with its path', () => {
    expect(problemsOf(() => file({ type: 'oracle', url: 'x' })).join('\n')).toContain('dataSource')
    expect(problemsOf(() => file({ type: 'postgres', url: 'postgres://db/x', poolSize: 3 })).join('\n')).toContain(
      'dataSource',
    )
  })
})
