import { afterEach, describe, expect, it } from 'bun:test'
import { and, eq } from 'drizzle-orm'
import { first } from '../../../../db/client'
import { keys } from '../../../helpers/fixtures'
import { D1, D2, managementApp, workbookWithDashboard, type ManagementApp, apiKeyId } from '../helpers'

let app: ManagementApp
afterEach(() => app?.close())

const schedule = { frequency: 'weekly', timeOfDay: '08:30' }
async function userId(username: string): Promise<number> {
  const { users } = app.storage.tables
  const user = await first(
    app.storage.db
      .select({ id: users.id })
      .from(users)
      .where(and(eq(users.identity, username), eq(users.kind, 'internal'))),
  )
  return user!.id
}

describe('POST /api/v1/deployments/:deploymentId/notifications', () => {
  it('creates a notification by dashboardId with filters and time grains', async () => {
    app = managementApp()
    const { dashboard } = await workbookWithDashboard(app)
    const created = await app.call('POST', `${D1}/notifications`, {
      dashboardId: dashboard.id,
      name: 'Weekly sales',
      schedule,
      recipients: [{ kind: 'user', userId: await userId('bob'), username: 'bob' }],
      filters: [{ member: 'customers.region', operator: 'equals', values: ['EMEA'] }],
      timeGrains: [{ member: 'orders.created_at', granularity: 'week' }],
    })
    expect(created.status).toBe(201)
    expect(created.body).toEqual({
      id: expect.any(Number),
      deploymentId: 1,
      dashboardId: dashboard.id,
      dashboardPublicId: null,
      name: 'Weekly sales',
      schedule: { frequency: 'weekly', timeOfDay: '08:30' },
      enabled: true,
      recipients: [{ kind: 'user', userId: await userId('bob'), username: 'bob' }],
      filters: [{ member: 'customers.region', operator: 'equals', values: ['EMEA'] }],
      timeGrains: [{ member: 'orders.created_at', granularity: 'week' }],
      createdAt: '2026-07-20T12:00:00.000Z',
      updatedAt: '2026-07-20T12:00:00.000Z',
    })
  })

  it('creates a notification by the dashboardPublicId of a published dashboard; username is optional', async () => {
    app = managementApp()
    const { dashboard } = await workbookWithDashboard(app, { published: true })
    const created = await app.call('POST', `${D1}/notifications`, {
      dashboardPublicId: dashboard.publicId,
      name: 'Daily',
      schedule: { frequency: 'daily' },
      recipients: [{ kind: 'embedUser', embedTenantName: 'tenant-one', externalId: 'customer-7' }],
    })
    expect(created.status).toBe(201)
    expect(created.body).toMatchObject({
      dashboardId: dashboard.id,
      dashboardPublicId: dashboard.publicId,
      schedule: { frequency: 'daily', timeOfDay: null },
      recipients: [{ kind: 'embedUser', embedTenantName: 'tenant-one', externalId: 'customer-7' }],
      filters: [],
      timeGrains: [],
    })
  })

  it("returns 400 for an embed recipient's externalId that is not lowercase and trimmed, never normalizing it", async () => {
    app = managementApp()
    const { dashboard } = await workbookWithDashboard(app, { published: true })
    // `Customer-7` and `customer-7` may be two people: storing the one as the other would notify the wrong user.
    // Stored as UTF-8, an unpaired surrogate reads back as U+FFFD: one recipient for every such id.
    for (const [externalId, code, error] of [
      [' customer-7', 'INVALID_EXTERNAL_ID', 'recipients[1].externalId must be'],
      ['Customer-7', 'INVALID_EXTERNAL_ID', 'recipients[1].externalId must be'],
      ['customer\uD800', 'UNPAIRED_SURROGATE', 'Text must be well-formed Unicode: recipients[1].externalId has'],
    ]) {
      const created = await app.call('POST', `${D1}/notifications`, {
        dashboardId: dashboard.id,
        name: 'Daily',
        schedule: { frequency: 'daily' },
        recipients: [
          { kind: 'user', email: 'a@b.co' },
          { kind: 'embedUser', embedTenantName: 'tenant-one', externalId },
        ],
      })
      expect({ externalId, status: created.status, code: created.body.code }).toEqual({ externalId, status: 400, code })
      expect(created.body.error).toStartWith(error)
    }
    expect((await app.call('GET', `${D1}/notifications`)).body.items).toEqual([])
  })

  it('returns 400 unless exactly one of dashboardId and dashboardPublicId is sent, and stores nothing', async () => {
    app = managementApp()
    const { dashboard } = await workbookWithDashboard(app, { published: true })
    const base = { name: 'N', schedule, recipients: [{ kind: 'user', email: 'a@b.co' }] }
    const both = await app.call('POST', `${D1}/notifications`, {
      ...base,
      dashboardId: dashboard.id,
      dashboardPublicId: dashboard.publicId,
    })
    const neither = await app.call('POST', `${D1}/notifications`, base)
    for (const response of [both, neither])
      expect(response).toMatchObject({
        status: 400,
        body: { error: 'Send exactly one of dashboardId and dashboardPublicId', code: 'DASHBOARD_REFERENCE' },
      })
    expect((await app.call('GET', `${D1}/notifications`)).body.items).toEqual([])
  })

  it('returns 400 for unknown dashboards, unknown users and tenants, and recipients without an address', async () => {
    app = managementApp()
    const { dashboard } = await workbookWithDashboard(app)
    const base = { name: 'N', schedule, dashboardId: dashboard.id }
    const cases: [unknown, string][] = [
      [{ ...base, dashboardId: 999, recipients: [{ kind: 'user', email: 'a@b.co' }] }, 'UNKNOWN_DASHBOARD'],
      [
        { name: 'N', schedule, dashboardPublicId: 'pd_nope', recipients: [{ kind: 'user', email: 'a@b.co' }] },
        'UNKNOWN_DASHBOARD',
      ],
      [{ ...base, recipients: [{ kind: 'user', userId: 999 }] }, 'UNKNOWN_USER'],
      [{ ...base, recipients: [{ kind: 'user' }] }, 'INVALID_RECIPIENT'],
      [
        { ...base, recipients: [{ kind: 'embedUser', embedTenantName: 'no-such', externalId: 'x' }] },
        'UNKNOWN_EMBED_TENANT',
      ],
      [{ ...base, recipients: [] }, 'VALIDATION_FAILED'],
      [
        {
          ...base,
          recipients: [{ kind: 'user', email: 'a@b.co' }],
          schedule: { frequency: 'daily', timeOfDay: '25:00' },
        },
        'VALIDATION_FAILED',
      ],
    ]
    for (const [body, code] of cases) {
      const response = await app.call('POST', `${D1}/notifications`, body)
      expect(response.status).toBe(400)
      expect(response.body.code).toBe(code)
    }
  })

  it('says what a recipient lacks: an email that is no address, a kind that is neither', async () => {
    app = managementApp()
    const { dashboard } = await workbookWithDashboard(app)
    const base = { name: 'N', schedule, dashboardId: dashboard.id }
    for (const [recipient, error] of [
      [
        { kind: 'user', email: 'bob' },
        'recipients[0].email: expected text of this form: an email address, e.g. `ann@example.com`',
      ],
      [{ kind: 'robot', email: 'a@b.co' }, 'recipients[0].kind: expected one of user, embedUser'],
      [{ kind: 'embedUser', embedTenantName: 'tenant-one' }, 'recipients[0].externalId: required'],
    ] as const) {
      const refused = await app.call('POST', `${D1}/notifications`, { ...base, recipients: [recipient] })
      expect(refused).toMatchObject({ status: 400, body: { error, code: 'VALIDATION_FAILED' } })
    }
  })

  it('returns 400 DUPLICATE_RECIPIENT for a recipient named twice (email in any case), and stores nothing', async () => {
    app = managementApp()
    const { dashboard } = await workbookWithDashboard(app)
    const base = { name: 'N', schedule, dashboardId: dashboard.id }
    const bob = await userId('bob')
    const twice: [unknown[], string][] = [
      [
        [
          { kind: 'user', email: 'a@b.co' },
          { kind: 'user', email: 'A@B.co', username: 'a' },
        ],
        'recipients[1]',
      ],
      [
        [
          { kind: 'user', userId: bob },
          { kind: 'user', email: 'c@d.co' },
          { kind: 'user', userId: bob },
        ],
        'recipients[2]',
      ],
      // alice by id and by the email that is her username: one person.
      [
        [
          { kind: 'user', userId: await userId('alice@acme.com') },
          { kind: 'user', email: 'Alice@Acme.com' },
        ],
        'recipients[1]',
      ],
      [
        [
          { kind: 'embedUser', embedTenantName: 'tenant-one', externalId: 'u-1' },
          { kind: 'embedUser', embedTenantName: 'tenant-one', externalId: 'u-1' },
        ],
        'recipients[1]',
      ],
    ]
    for (const [recipients, at] of twice) {
      const response = await app.call('POST', `${D1}/notifications`, { ...base, recipients })
      expect(response).toMatchObject({ status: 400, body: { code: 'DUPLICATE_RECIPIENT' } })
      expect(response.body.error).toStartWith(`${at}: the same recipient as`)
    }
    const created = await app.call('POST', `${D1}/notifications`, {
      ...base,
      recipients: [{ kind: 'user', email: 'a@b.co' }],
    })
    const patched = await app.call('PATCH', `${D1}/notifications/${created.body.id}`, {
      recipients: [
        { kind: 'user', email: 'a@b.co' },
        { kind: 'user', email: 'a@b.co' },
      ],
    })
    expect(patched).toMatchObject({ status: 400, body: { code: 'DUPLICATE_RECIPIENT' } })
    expect((await app.call('GET', `${D1}/notifications`)).body.items).toHaveLength(1)
    // Different people stay different: two emails, two external ids of one tenant.
    const distinct = await app.call('POST', `${D1}/notifications`, {
      ...base,
      recipients: [
        { kind: 'user', email: 'a@b.co' },
        { kind: 'user', email: 'b@b.co' },
        { kind: 'embedUser', embedTenantName: 'tenant-one', externalId: 'u-1' },
        { kind: 'embedUser', embedTenantName: 'tenant-one', externalId: 'u-2' },
      ],
    })
    expect(distinct.status).toBe(201)
  })

  it('needs NotificationsManage: a viewer key gets 403', async () => {
    app = managementApp()
    const { dashboard } = await workbookWithDashboard(app)
    const memberKeyId = await apiKeyId(app, 'member')
    await app.call('PUT', `/api/v1/api-keys/${memberKeyId}/policy`, { role: 'viewer' })
    const body = { dashboardId: dashboard.id, name: 'N', schedule, recipients: [{ kind: 'user', email: 'a@b.co' }] }
    expect((await app.call('POST', `${D1}/notifications`, body, keys.member)).body.code).toBe('PERMISSION_DENIED')
  })
})

describe('GET /api/v1/deployments/:deploymentId/notifications', () => {
  async function seed() {
    const published = await workbookWithDashboard(app, { published: true })
    const other = await workbookWithDashboard(app)
    const make = (dashboardId: number, name: string, recipients: unknown[]) =>
      app.call('POST', `${D1}/notifications`, { dashboardId, name, schedule, recipients })
    await make(published.dashboard.id, 'to-bob', [{ kind: 'user', userId: await userId('bob') }])
    await make(published.dashboard.id, 'to-alice-mail', [{ kind: 'user', email: 'Alice@Acme.com', username: 'alice' }])
    await make(other.dashboard.id, 'to-embed', [
      { kind: 'embedUser', embedTenantName: 'tenant-one', externalId: 'cust-1' },
      { kind: 'embedUser', embedTenantName: 'tenant-two', externalId: 'cust-2' },
    ])
    return published.dashboard.publicId as string
  }
  const names = async (query: string) =>
    (await app.call('GET', `${D1}/notifications?${query}`)).body.items.map(
      (notification: { name: string }) => notification.name,
    )

  it('filters by dashboardPublicId and by console recipient (userId, email)', async () => {
    app = managementApp()
    const publicId = await seed()
    expect(await names('')).toEqual(['to-bob', 'to-alice-mail', 'to-embed'])
    expect(await names(`dashboardPublicId=${publicId}`)).toEqual(['to-bob', 'to-alice-mail'])
    expect(await names(`recipientUserId=${await userId('bob')}`)).toEqual(['to-bob'])
    expect(await names('recipientEmail=alice@acme.com')).toEqual(['to-alice-mail'])
    expect(await names('recipientEmail=nobody@acme.com')).toEqual([])
  })

  it('finds a console user named by userId through the email that is their username, and the other way round', async () => {
    app = managementApp()
    await seed()
    const alice = await userId('alice@acme.com')
    const dashboard = (await app.call('GET', `${D1}/dashboards`)).body.items[0].id
    await app.call('POST', `${D1}/notifications`, {
      dashboardId: dashboard,
      name: 'to-alice-id',
      schedule,
      recipients: [{ kind: 'user', userId: alice }],
    })
    // One person, whichever way the notification or the filter names them.
    expect(await names(`recipientUserId=${alice}`)).toEqual(['to-alice-mail', 'to-alice-id'])
    expect(await names('recipientEmail=ALICE@acme.com')).toEqual(['to-alice-mail', 'to-alice-id'])
    // The filter's text is read as a username, as console users sign in with it.
    expect(await names('recipientEmail=bob')).toEqual(['to-bob'])
    expect(await names(`recipientUserId=${await userId('bob')}&recipientEmail=alice@acme.com`)).toEqual([])
  })

  it('filters by embed recipient with tenant and external id together, and refuses one without the other', async () => {
    app = managementApp()
    await seed()
    expect(await names('recipientEmbedTenantName=tenant-two&recipientExternalId=cust-2')).toEqual(['to-embed'])
    // Matched as written, as the externalId is stored: `CUST-2` is another user.
    expect(await names('recipientEmbedTenantName=tenant-two&recipientExternalId=CUST-2')).toEqual([])
    expect(await names('recipientEmbedTenantName=tenant-one&recipientExternalId=cust-2')).toEqual([])
    const alone = await app.call('GET', `${D1}/notifications?recipientEmbedTenantName=tenant-two`)
    expect(alone).toMatchObject({ status: 400, body: { code: 'EMBED_RECIPIENT_FILTER' } })
    expect((await app.call('GET', `${D1}/notifications?recipientExternalId=cust-2`)).status).toBe(400)
  })

  it('pages through a recipient filter over many notifications: every match once, in order, none other', async () => {
    app = managementApp()
    const { dashboard } = await workbookWithDashboard(app)
    const { notifications } = app.storage.tables
    const start = app.clock()
    // Sparse matches among more notifications than the list reads at a time, with ties on createdAt. A userId
    // stored as text, or a match spread over two recipients, is no match.
    const recipientsOf = (index: number) =>
      index % 37 === 0
        ? [
            { kind: 'user', email: 'ann@example.com' },
            { kind: 'user', userId: 7 },
          ]
        : index % 11 === 0
          ? [{ kind: 'user', email: 'ann@example.com' }]
          : index % 5 === 0
            ? [
                { kind: 'user', userId: '7', email: 'ann@example.com' },
                { kind: 'user', userId: 8 },
              ]
            : [{ kind: 'user', userId: 7 + (index % 3) }]
    await app.storage.transaction(async (tx) => {
      for (let index = 0; index < 700; index++)
        await tx.insert(notifications).values({
          deploymentId: 1,
          dashboardId: dashboard.id,
          name: `n${index}`,
          frequency: 'daily',
          recipients: recipientsOf(index),
          filters: [],
          timeGrains: [],
          createdAt: start + Math.floor(index / 3),
          updatedAt: start,
        })
    })
    const expected = Array.from({ length: 700 }, (_, index) => index)
      .filter((index) => index % 37 === 0)
      .map((index) => `n${index}`)
    const walked: string[] = []
    let after = ''
    for (let page = 0; page < 50; page++) {
      const answer = await app.call(
        'GET',
        `${D1}/notifications?recipientEmail=Ann@Example.com&recipientUserId=7&first=4${after}`,
      )
      walked.push(...answer.body.items.map((notification: { name: string }) => notification.name))
      if (!answer.body.pageInfo.hasNextPage) break
      after = `&after=${answer.body.pageInfo.endCursor}`
    }
    expect(walked).toEqual(expected)
  })

  it('pages with items and pageInfo', async () => {
    app = managementApp()
    await seed()
    const first = await app.call('GET', `${D1}/notifications?first=2`)
    expect(first.body.pageInfo).toEqual({ hasNextPage: true, endCursor: expect.any(String) })
    const second = await app.call('GET', `${D1}/notifications?first=2&after=${first.body.pageInfo.endCursor}`)
    expect(second.body.items.map((notification: { name: string }) => notification.name)).toEqual(['to-embed'])
  })
})

describe('PATCH/GET/DELETE /api/v1/deployments/:deploymentId/notifications/:notificationId', () => {
  it('updates filters, time grains and schedule, deletes (204) and then answers 404', async () => {
    app = managementApp()
    const { dashboard } = await workbookWithDashboard(app)
    const created = await app.call('POST', `${D1}/notifications`, {
      dashboardId: dashboard.id,
      name: 'N',
      schedule,
      recipients: [{ kind: 'user', email: 'a@b.co' }],
    })
    const id = created.body.id
    const updated = await app.call('PATCH', `${D1}/notifications/${id}`, {
      filters: [{ member: 'orders.status', operator: 'notEquals', values: ['cancelled'] }],
      timeGrains: [{ member: 'orders.created_at', granularity: 'day' }],
      schedule: { frequency: 'monthly' },
      enabled: false,
    })
    expect(updated.status).toBe(200)
    expect(updated.body).toMatchObject({
      filters: [{ member: 'orders.status', operator: 'notEquals', values: ['cancelled'] }],
      timeGrains: [{ member: 'orders.created_at', granularity: 'day' }],
      schedule: { frequency: 'monthly', timeOfDay: null },
      enabled: false,
      recipients: [{ kind: 'user', email: 'a@b.co' }],
    })
    expect((await app.call('GET', `${D2}/notifications/${id}`)).status).toBe(404)
    expect((await app.call('DELETE', `${D1}/notifications/${id}`)).status).toBe(204)
    expect((await app.call('GET', `${D1}/notifications/${id}`)).body.code).toBe('NOTIFICATION_NOT_FOUND')
  })

  it('deletes the notifications of a deleted dashboard', async () => {
    app = managementApp()
    const { dashboard } = await workbookWithDashboard(app)
    const created = await app.call('POST', `${D1}/notifications`, {
      dashboardId: dashboard.id,
      name: 'N',
      schedule,
      recipients: [{ kind: 'user', email: 'a@b.co' }],
    })
    await app.call('DELETE', `${D1}/dashboards/${dashboard.id}`)
    expect((await app.call('GET', `${D1}/notifications/${created.body.id}`)).status).toBe(404)
  })
})

describe('filters and time grains of a notification', () => {
  it('are checked against the model as a dashboard’s are: 400 INVALID_DASHBOARD_CONTROL naming them, nothing saved', async () => {
    app = managementApp()
    const { dashboard } = await workbookWithDashboard(app)
    const recipients = [{ kind: 'user', email: 'a@b.co' }]
    const create = (controls: Record<string, unknown>) =>
      app.call('POST', `${D1}/notifications`, {
        dashboardId: dashboard.id,
        name: 'N',
        schedule,
        recipients,
        ...controls,
      })
    for (const [controls, named] of [
      [
        { filters: [{ member: 'orders.nope', operator: 'equals', values: ['x'] }] },
        'filters[0].member: Unknown member orders.nope',
      ],
      [{ timeGrains: [{ member: 'orders.status', granularity: 'week' }] }, 'timeGrains[0].member:'],
      [
        {
          timeGrains: [
            { member: 'orders.created_at', granularity: 'week' },
            { member: 'Orders.Created_At', granularity: 'month' },
          ],
        },
        'timeGrains[1].member: Orders.Created_At has a time grain already (timeGrains[0])',
      ],
      [
        { filters: [{ member: 'orders.created_at', operator: 'inDateRange', values: ['2024-01-01'] }] },
        'filters[0].values: a date range is two dates',
      ],
    ] as const) {
      const refused = await create(controls)
      expect({ named, status: refused.status, code: refused.body.code }).toEqual({
        named,
        status: 400,
        code: 'INVALID_DASHBOARD_CONTROL',
      })
      expect(refused.body.error).toStartWith(named)
    }
    expect((await app.call('GET', `${D1}/notifications`)).body.items).toEqual([])
    const fine = await create({ timeGrains: [{ member: 'orders.created_at', granularity: 'month' }] })
    expect(fine.status).toBe(201)
    const patched = await app.call('PATCH', `${D1}/notifications/${fine.body.id}`, {
      filters: [{ member: 'orders.count', operator: 'gt', values: ['1'] }],
    })
    expect(patched).toMatchObject({ status: 400, body: { code: 'INVALID_DASHBOARD_CONTROL' } })
    expect((await app.call('GET', `${D1}/notifications/${fine.body.id}`)).body.filters).toEqual([])
  })
})
