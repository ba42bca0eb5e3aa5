import type { BootstrapFile } from '../../src/bootstrap/model'

/** Keys of the test bootstrap, in clear (the database holds only their hashes). */
export const keys = {
  admin: 'ak_test_admin_0123456789',
  member: 'ak_test_member_0123456789',
  scoped: 'ak_test_scoped_0123456789',
  revoked: 'ak_test_revoked_0123456789',
  starterAdmin: 'ak_test_starter_0123456789',
  otherAdmin: 'ak_test_other_0123456789',
} as const

export const tokenSecrets = {
  deployment1: 'secret-of-deployment-1-0123456789',
  deployment2: 'secret-of-deployment-2-0123456789',
  deployment3: 'secret-of-deployment-3-0123456789',
} as const

/**
 * The bootstrap most tests start from: account `acme` (enterprise) with deployments 1 (token auth off) and
 * 2 (token auth on), account `starter` on a plan without embedding, and account `other` with deployment 3.
 */
export function testBootstrap(): BootstrapFile {
  return {
    accounts: [
      {
        name: 'acme',
        plan: 'enterprise',
        apiKeys: [
          { name: 'admin', key: keys.admin, admin: true },
          { name: 'member', key: keys.member },
          { name: 'scoped', key: keys.scoped, admin: true, deployments: [2] },
          { name: 'revoked', key: keys.revoked, admin: true, revoked: true },
        ],
        users: [{ username: 'Alice@Acme.com' }, { username: 'bob' }],
        groups: [{ name: 'sales', description: 'Sales team' }, { name: 'marketing' }, { name: 'ops' }],
        userAttributes: [
          { name: 'region', type: 'string' },
          { name: 'level', type: 'number' },
          { name: 'beta', type: 'boolean' },
          { name: 'regions', type: 'string_array' },
          { name: 'codes', type: 'number_array' },
        ],
        embedTenants: [{ name: 'tenant-one', useCreatorMode: true }, { name: 'tenant-two' }],
        deployments: [
          {
            id: 1,
            name: 'Sales analytics',
            branches: ['main', 'dev'],
            model: 'demo',
            tokenAuth: { enabled: false, secret: tokenSecrets.deployment1 },
            agents: [{ id: 1, name: 'Analyst' }],
          },
          {
            id: 2,
            name: 'Support analytics',
            model: 'demo',
            tokenAuth: { enabled: true, secret: tokenSecrets.deployment2 },
            agents: [{ id: 2, name: 'Support analyst' }],
          },
        ],
      },
      {
        name: 'starter',
        plan: 'starter',
        apiKeys: [{ name: 'admin', key: keys.starterAdmin, admin: true }],
        deployments: [{ id: 4, name: 'Starter', agents: [{ id: 4, name: 'Analyst' }] }],
      },
      {
        name: 'other',
        plan: 'enterprise',
        apiKeys: [{ name: 'admin', key: keys.otherAdmin, admin: true }],
        userAttributes: [{ name: 'region', type: 'string' }],
        deployments: [
          {
            id: 3,
            name: 'Other analytics',
            tokenAuth: { enabled: true, secret: tokenSecrets.deployment3 },
            agents: [{ id: 3, name: 'Analyst' }],
          },
        ],
      },
    ],
  }
}
