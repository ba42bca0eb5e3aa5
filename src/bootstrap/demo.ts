import type { BootstrapFile } from './model'

/**
 * The user attribute the demo model's access policy reads (a viewer sees only the orders of customers in their
 * region). Every account with a deployment on the demo model has it, so that policy always has a value to read: the
 * built-in bootstrap lists it, and applying a file adds it when the file does not.
 */
export const DEMO_REGION_ATTRIBUTE = {
  name: 'region',
  type: 'string',
  displayName: 'Region',
  description: 'Sees only orders of customers in this region',
} as const

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
        userAttributes: [{ ...DEMO_REGION_ATTRIBUTE }],
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
