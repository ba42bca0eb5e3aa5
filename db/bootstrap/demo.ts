import type { BootstrapFile } from './model'

/**
 * The built-in demo bootstrap, applied to an empty database when no `BOOTSTRAP_FILE` is set: account `demo` on the
 * enterprise plan, deployment 1 with agent 1 over the demo model, the `region` attribute its access policy reads,
 * and one admin key.
 */
export function demoBootstrap(adminKey: string): BootstrapFile {
  return {
    accounts: [
      {
        name: 'demo',
        plan: 'enterprise',
        settings: { showDashboardChat: true },
        apiKeys: [{ name: 'demo-admin', key: adminKey, admin: true }],
        users: [{ username: 'analyst@demo.example' }],
        groups: [
          { name: 'sales', description: 'Sales team' },
          { name: 'marketing', description: 'Marketing team' },
          { name: 'finance', description: 'Finance team' },
        ],
        userAttributes: [
          {
            name: 'region',
            type: 'string',
            displayName: 'Region',
            description: 'Sees only orders of customers in this region',
          },
        ],
        embedTenants: [{ name: 'demo-tenant', useCreatorMode: true, displayName: 'Demo tenant' }],
        deployments: [
          {
            id: 1,
            name: 'Demo analytics',
            branches: ['main', 'dev'],
            model: 'demo',
            agents: [{ id: 1, name: 'Analyst', kind: 'analyst' }],
          },
        ],
      },
    ],
  }
}
