import { afterEach, describe, expect, it } from 'bun:test'
import fc from 'fast-check'
import { evaluateChatThreadPolicies, loadChatThreadPolicies } from '../../../../plugins/management'
import type { ChatThreadPolicyDTO } from '../../../../plugins/management/model'
import { D1, managementApp, type ManagementApp } from '../helpers'

let app: ManagementApp
afterEach(() => app?.close())

const create = { action: 'ChatThreadCreate', resourceType: 'agent', resourceId: '1' } as const
const policy = (
  effect: 'allow' | 'deny',
  resources: string[],
  overrides: Partial<ChatThreadPolicyDTO> = {},
): ChatThreadPolicyDTO => ({
  actions: ['ChatThreadCreate'],
  effect,
  resourceType: 'agent',
  resources,
  ...overrides,
})

describe('evaluateChatThreadPolicies', () => {
  it('allows everything when there are no policies', () => {
    expect(evaluateChatThreadPolicies([], create)).toBe('allow')
  })

  it('denies a resource a deny policy names, and allows the others', () => {
    const policies = [policy('deny', ['1'])]
    expect(evaluateChatThreadPolicies(policies, create)).toBe('deny')
    expect(evaluateChatThreadPolicies(policies, { ...create, resourceId: '2' })).toBe('allow')
    expect(evaluateChatThreadPolicies(policies, { ...create, action: 'ChatThreadRead' })).toBe('allow')
  })

  it('lets deny win over a matching allow', () => {
    expect(evaluateChatThreadPolicies([policy('allow', ['*']), policy('deny', ['1'])], create)).toBe('deny')
    expect(evaluateChatThreadPolicies([policy('deny', ['1']), policy('allow', ['1'])], create)).toBe('deny')
  })

  it('treats allow policies as an allow-list for their action and resource type', () => {
    const policies = [policy('allow', ['2'])]
    expect(evaluateChatThreadPolicies(policies, { ...create, resourceId: '2' })).toBe('allow')
    expect(evaluateChatThreadPolicies(policies, create)).toBe('deny')
    expect(
      evaluateChatThreadPolicies(policies, { action: 'ChatThreadRead', resourceType: 'thread', resourceId: 'c1' }),
    ).toBe('allow')
  })

  it('matches * for actions, resource types and resources', () => {
    const denyAll = [policy('deny', ['*'], { actions: ['*'], resourceType: '*' })]
    expect(
      evaluateChatThreadPolicies(denyAll, { action: 'ChatThreadAbort', resourceType: 'thread', resourceId: 'x' }),
    ).toBe('deny')
  })

  it('never lets a request through that a matching deny names (property)', () => {
    const action = fc.constantFrom(
      'ChatThreadCreate',
      'ChatThreadRead',
      'ChatThreadAbort',
      'DownloadData',
      'SecretsManage',
      '*',
    )
    const resourceType = fc.constantFrom('agent', 'thread', '*')
    const resource = fc.constantFrom('1', '2', 'c1', '*')
    const arbitraryPolicy = fc.record({
      actions: fc.array(action, { minLength: 1, maxLength: 3 }),
      effect: fc.constantFrom('allow', 'deny'),
      resourceType,
      resources: fc.array(resource, { minLength: 1, maxLength: 3 }),
    }) as fc.Arbitrary<ChatThreadPolicyDTO>
    const request = fc.record({
      action: fc.constantFrom('ChatThreadCreate', 'ChatThreadRead', 'ChatThreadAbort'),
      resourceType: fc.constantFrom('agent', 'thread'),
      resourceId: fc.constantFrom('1', '2', 'c1'),
    }) as fc.Arbitrary<Parameters<typeof evaluateChatThreadPolicies>[1]>
    fc.assert(
      fc.property(fc.array(arbitraryPolicy, { maxLength: 6 }), request, (policies, asked) => {
        const decision = evaluateChatThreadPolicies(policies, asked)
        const deniedBy = policies.some(
          (candidate) =>
            candidate.effect === 'deny' &&
            (candidate.actions.includes(asked.action) || candidate.actions.includes('*')) &&
            (candidate.resourceType === asked.resourceType || candidate.resourceType === '*') &&
            (candidate.resources.includes(asked.resourceId) || candidate.resources.includes('*')),
        )
        if (deniedBy) expect(decision).toBe('deny')
        // Adding a deny for exactly this request always denies it, whatever else is there.
        expect(
          evaluateChatThreadPolicies(
            [
              ...policies,
              policy('deny', [asked.resourceId], { actions: [asked.action], resourceType: asked.resourceType }),
            ],
            asked,
          ),
        ).toBe('deny')
      }),
    )
  })
})

describe('loadChatThreadPolicies', () => {
  it("loads the deployment's policies as stored through the API, and none for other deployments", async () => {
    app = managementApp()
    expect(await loadChatThreadPolicies(app.storage, 1)).toEqual([])
    const policies = [policy('deny', ['1'])]
    await app.call('PATCH', `${D1}/ai-engineer-settings`, { chatThreadPolicies: policies })
    expect(await loadChatThreadPolicies(app.storage, 1)).toEqual(policies)
    expect(evaluateChatThreadPolicies(await loadChatThreadPolicies(app.storage, 1), create)).toBe('deny')
    expect(await loadChatThreadPolicies(app.storage, 2)).toEqual([])
  })
})
