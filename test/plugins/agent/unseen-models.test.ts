import { describe, expect, it } from 'bun:test'
import { runAnalyst } from './run-analyst'

/**
 * The offline analyst on models as `model generate` writes them from databases no one on the team has seen: a
 * table of rent payments (what is paid named before the money noun).
 */
const member = (cube: string, name: string, type: string, extra: Record<string, unknown> = {}) => ({
  name: `${cube}.${name}`,
  type,
  ...extra,
})
const rentMeta = {
  cubes: [
    {
      name: 'rent_payments',
      title: 'Rent payments',
      joins: [{ name: 'tenants', relationship: 'many_to_one' }],
      measures: [
        member('rent_payments', 'count', 'count', { title: 'Number of rent payments', synonyms: ['transactions'] }),
        member('rent_payments', 'total_amount', 'sum', {
          title: 'Revenue',
          format: 'currency',
          synonyms: ['revenue', 'sales', 'turnover'],
        }),
        member('rent_payments', 'average_amount', 'avg', {
          title: 'Average rent payment value',
          format: 'currency',
        }),
      ],
      dimensions: [
        member('rent_payments', 'id', 'number', { primaryKey: true, title: 'Rent payment ID' }),
        member('rent_payments', 'tenant_id', 'number', { title: 'Tenant ID' }),
        member('rent_payments', 'amount', 'number', { title: 'Rent payment amount' }),
        member('rent_payments', 'paid_on', 'time', { title: 'Paid on' }),
      ],
    },
    {
      name: 'tenants',
      title: 'Tenants',
      label: 'full_name',
      joins: [],
      measures: [member('tenants', 'count', 'count', { title: 'Number of tenants' })],
      dimensions: [
        member('tenants', 'id', 'number', { primaryKey: true, title: 'Tenant ID' }),
        member('tenants', 'full_name', 'string', { title: 'Tenant name' }),
        member('tenants', 'building', 'string', { title: 'Building' }),
      ],
    },
  ],
}

describe('the offline analyst on a table of payments named by what is paid', () => {
  it('reads the words before the money noun as the money, and counts the payments when asked how many', () => {
    for (const question of ['Total rent paid', 'Rent in 2024', 'Rent by building'])
      expect(runAnalyst(rentMeta, question).queries.join('\n')).toContain('MEASURE(rent_payments.total_amount)')
    const many = runAnalyst(rentMeta, 'How many rent payments in 2024?').queries.join('\n')
    expect(many).toContain('MEASURE(rent_payments.count)')
    expect(many).not.toContain('total_amount')
  })
})
