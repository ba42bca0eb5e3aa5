import { afterEach, describe, expect, it } from 'bun:test'
import { keys } from '../../../helpers/fixtures'
import { D1, D2, managementApp, type ManagementApp } from '../helpers'

let app: ManagementApp
afterEach(() => app?.close())

describe('GET/PATCH /api/v1/app-config', () => {
  it("returns the defaults of the key's account, then the changed fields only", async () => {
    app = managementApp()
    const defaults = await app.call('GET', '/api/v1/app-config')
    expect(defaults).toMatchObject({
      status: 200,
      body: {
        appTheme: { mode: 'system', primaryColor: null },
        applyThemeGlobally: false,
        creatorMode: { showGeneratedSql: false, showSemanticSql: false, localizedTitles: [] },
        embedding: { locale: null },
      },
    })
    const changed = await app.call('PATCH', '/api/v1/app-config', {
      appTheme: { primaryColor: '#112233' },
      creatorMode: { showSemanticSql: true, localizedTitles: [{ locale: 'de', value: 'Umsatz' }] },
      embedding: { locale: 'pt-BR' },
    })
    expect(changed.body).toEqual({
      appTheme: { mode: 'system', primaryColor: '#112233' },
      applyThemeGlobally: false,
      creatorMode: {
        showGeneratedSql: false,
        showSemanticSql: true,
        localizedTitles: [{ locale: 'de', value: 'Umsatz' }],
      },
      embedding: { locale: 'pt-BR' },
    })
    expect((await app.call('GET', '/api/v1/app-config', undefined, keys.member)).body).toEqual(changed.body)
    expect((await app.call('GET', '/api/v1/app-config', undefined, keys.otherAdmin)).body.embedding.locale).toBeNull()
  })

  it('returns 400 for a bad locale or color, and 403 without SettingsManage', async () => {
    app = managementApp()
    // The message says what the text must be, not "a string or null" to a caller who sent a string.
    expect(await app.call('PATCH', '/api/v1/app-config', { embedding: { locale: 'not a locale' } })).toMatchObject({
      status: 400,
      body: { error: 'embedding.locale: expected text of this form: BCP 47 tag, e.g. `en` or `pt-BR`' },
    })
    expect(await app.call('PATCH', '/api/v1/app-config', { appTheme: { primaryColor: 'red' } })).toMatchObject({
      status: 400,
      body: { error: 'appTheme.primaryColor: expected text of this form: a # and six hex digits, e.g. `#1A73E8`' },
    })
    const refused = await app.call('PATCH', '/api/v1/app-config', { applyThemeGlobally: true }, keys.member)
    expect(refused).toMatchObject({ status: 403, body: { error: 'This API key lacks the SettingsManage permission' } })
    expect((await app.call('GET', '/api/v1/app-config')).body.applyThemeGlobally).toBe(false)
  })

  it('returns 400 when two localized titles name the same locale, in any case, and keeps the stored titles', async () => {
    app = managementApp()
    const titles = [{ locale: 'de', value: 'Umsatz' }]
    await app.call('PATCH', '/api/v1/app-config', { creatorMode: { localizedTitles: titles } })
    for (const twice of [
      [
        { locale: 'pt-BR', value: 'Receita' },
        { locale: 'pt-BR', value: 'Faturamento' },
      ],
      [
        { locale: 'fr', value: 'Chiffre' },
        { locale: 'FR', value: "Chiffre d'affaires" },
      ],
    ]) {
      const refused = await app.call('PATCH', '/api/v1/app-config', { creatorMode: { localizedTitles: twice } })
      expect(refused).toMatchObject({
        status: 400,
        body: {
          error: `creatorMode.localizedTitles[1].locale: locale "${twice[1].locale}" is given twice`,
          code: 'DUPLICATE_LOCALE',
        },
      })
    }
    expect((await app.call('GET', '/api/v1/app-config')).body.creatorMode.localizedTitles).toEqual(titles)
  })

  it('returns 401 without a key', async () => {
    app = managementApp()
    expect((await app.call('GET', '/api/v1/app-config', undefined, '')).status).toBe(401)
  })
})

describe('GET/PATCH /api/v1/deployments/:deploymentId/ai-engineer-settings', () => {
  it('stores chatThreadPolicies per deployment', async () => {
    app = managementApp()
    expect((await app.call('GET', `${D1}/ai-engineer-settings`)).body).toEqual({
      chatThreadPolicies: [],
      instructions: null,
      updatedAt: null,
    })
    const policies = [
      { actions: ['ChatThreadCreate'], effect: 'deny', resourceType: 'agent', resources: ['1'] },
      {
        actions: ['ChatThreadRead', 'DownloadData', 'SecretsManage'],
        effect: 'allow',
        resourceType: 'thread',
        resources: ['*'],
      },
    ]
    const updated = await app.call('PATCH', `${D1}/ai-engineer-settings`, {
      chatThreadPolicies: policies,
      instructions: 'Answer briefly.',
    })
    expect(updated.body).toEqual({
      chatThreadPolicies: policies,
      instructions: 'Answer briefly.',
      updatedAt: '2026-07-20T12:00:00.000Z',
    })
    expect((await app.call('GET', `${D1}/ai-engineer-settings`)).body.chatThreadPolicies).toEqual(policies)
    expect((await app.call('GET', `${D2}/ai-engineer-settings`)).body.chatThreadPolicies).toEqual([])
    const keepPolicies = await app.call('PATCH', `${D1}/ai-engineer-settings`, { instructions: null })
    expect(keepPolicies.body).toMatchObject({ chatThreadPolicies: policies, instructions: null })
  })

  it('returns 400 for an unknown effect or action and for empty resources, and 403 without SettingsManage', async () => {
    app = managementApp()
    const bad = [
      { actions: ['ChatThreadCreate'], effect: 'maybe', resourceType: 'agent', resources: ['1'] },
      { actions: ['ChatThreadDelete'], effect: 'deny', resourceType: 'agent', resources: ['1'] },
      { actions: ['ChatThreadCreate'], effect: 'deny', resourceType: 'agent', resources: [] },
    ]
    for (const policy of bad)
      expect((await app.call('PATCH', `${D1}/ai-engineer-settings`, { chatThreadPolicies: [policy] })).status).toBe(400)
    expect(
      (await app.call('PATCH', `${D1}/ai-engineer-settings`, { chatThreadPolicies: [] }, keys.member)).status,
    ).toBe(403)
  })
})
