import { afterEach, describe, expect, it } from 'bun:test'
import { userChangesOver } from '../../../plugins/auth/user-changes'
import { createUserProvisioner, USERS_MAX_AGE_MS } from '../../../plugins/embed/provisioning'
import { createTestApp, type TestApp } from '../../helpers/app'
import { generate } from './helpers'

let test: TestApp
afterEach(() => test?.close())

const ACME = 1

describe('users named by their identity alone, kept in memory by a node of several', () => {
  it('answers from memory until the user changes: at once when the change is announced, within the bound when not', async () => {
    test = createTestApp()
    let now = 1_000_000
    const clock = () => now
    // A node's provisioner, hearing the changes announced on the bus (this process's bus here).
    const node = createUserProvisioner(
      test.deps.storage,
      clock,
      userChangesOver(test.deps.bus, () => {}),
    )
    const groupsOf = async () => (await node.fromSessionSettings(ACME, { externalId: 'kept' })).access.groups
    // Created by the first request (a write, announced), kept from the next one.
    expect(await groupsOf()).toEqual([])
    expect(await groupsOf()).toEqual([])

    // Changed where nobody announces it (as if the announcement were lost): still answered from memory, until the
    // bound has passed.
    const silent = createUserProvisioner(test.deps.storage, clock)
    await silent.fromSessionSettings(ACME, { externalId: 'kept', groups: ['sales'] })
    expect(await groupsOf()).toEqual([])
    now += USERS_MAX_AGE_MS - 1
    expect(await groupsOf()).toEqual([])
    now += 1
    expect(await groupsOf()).toEqual(['sales'])

    // generate-session announces the user it provisioned once committed: read again at once.
    const response = await generate(test, { deploymentId: 1, externalId: 'kept', groups: ['ops'] })
    expect(response.status).toBe(200)
    expect(await groupsOf()).toEqual(['ops'])

    // So does a chat request whose sessionSettings change the user, on any node.
    await node.fromSessionSettings(ACME, { externalId: 'kept', groups: ['sales', 'ops'] })
    expect(await groupsOf()).toEqual(['ops', 'sales'])
    const otherNode = createUserProvisioner(
      test.deps.storage,
      clock,
      userChangesOver(test.deps.bus, () => {}),
    )
    await otherNode.fromSessionSettings(ACME, { externalId: 'kept', securityContext: { tenant: 9 } })
    expect((await node.fromSessionSettings(ACME, { externalId: 'kept' })).access.securityContext).toEqual({ tenant: 9 })
  })

  it('forgets every user when changes may have been missed (the node was cut off from the bus)', async () => {
    test = createTestApp()
    const node = createUserProvisioner(
      test.deps.storage,
      () => 0,
      userChangesOver(test.deps.bus, () => {}),
    )
    await node.fromSessionSettings(ACME, { externalId: 'cut-off' })
    expect((await node.fromSessionSettings(ACME, { externalId: 'cut-off' })).access.groups).toEqual([])
    await createUserProvisioner(test.deps.storage, () => 0).fromSessionSettings(ACME, {
      externalId: 'cut-off',
      groups: ['sales'],
    })
    expect((await node.fromSessionSettings(ACME, { externalId: 'cut-off' })).access.groups).toEqual([])
    await test.deps.bus.publish({ type: 'embed-sessions-recheck' })
    expect((await node.fromSessionSettings(ACME, { externalId: 'cut-off' })).access.groups).toEqual(['sales'])
  })

  it('keeps nothing on one node without a bus: every request reads the user', async () => {
    test = createTestApp()
    await test.deps.users.fromSessionSettings(ACME, { externalId: 'one-node' })
    await createUserProvisioner(test.deps.storage, Date.now).fromSessionSettings(ACME, {
      externalId: 'one-node',
      groups: ['sales'],
    })
    expect((await test.deps.users.fromSessionSettings(ACME, { externalId: 'one-node' })).access.groups).toEqual([
      'sales',
    ])
  })
})
