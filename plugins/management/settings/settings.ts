import { eq } from 'drizzle-orm'
import { first, type Db, type Storage } from '../../../db/client'
import { BadRequestError } from '../../../lib/errors'
import { assertAccountWide } from '../../auth/deployment-authorization'
import { requireAction, type Actor } from '../access/key-policies'
import { isoTimeOrNull, writing, type ManagementContext } from '../access/context'
import type {
  AIEngineerSettings,
  AppConfigResponse,
  ChatThreadPolicyDTO,
  UpdateAIEngineerSettingsInput,
  UpdateAppConfigInput,
} from '../model'

/** The app configuration of an account that never changed it. */
export const DEFAULT_APP_CONFIG: AppConfigResponse = {
  appTheme: { mode: 'system', primaryColor: null },
  applyThemeGlobally: false,
  creatorMode: { showGeneratedSql: false, showSemanticSql: false, localizedTitles: [] },
  embedding: { locale: null },
}

async function storedAppConfig(storage: Storage, db: Db, accountId: number): Promise<AppConfigResponse> {
  const { appConfigs } = storage.tables
  const row = await first(db.select().from(appConfigs).where(eq(appConfigs.accountId, accountId)))
  const stored = (row?.config ?? {}) as Partial<AppConfigResponse>
  // Stored over the defaults, part by part, so fields added by later releases get their defaults.
  return {
    appTheme: { ...DEFAULT_APP_CONFIG.appTheme, ...stored.appTheme },
    applyThemeGlobally: stored.applyThemeGlobally ?? DEFAULT_APP_CONFIG.applyThemeGlobally,
    creatorMode: { ...DEFAULT_APP_CONFIG.creatorMode, ...stored.creatorMode },
    embedding: { ...DEFAULT_APP_CONFIG.embedding, ...stored.embedding },
  }
}

/** The app configuration of the actor's account. */
export async function getAppConfig(storage: Storage, actor: Actor): Promise<AppConfigResponse> {
  requireAction(actor, 'ContentRead')
  return storedAppConfig(storage, storage.db, actor.accountId)
}

/**
 * 400 when two localized titles name the same locale: one of them would be dropped wherever a title is picked.
 * Locale tags are compared ignoring case, as BCP 47 compares them (`pt-BR` and `pt-br` are one locale).
 */
function assertDistinctLocales(titles: readonly { locale: string }[]): void {
  const seen = new Set<string>()
  for (const [index, { locale }] of titles.entries()) {
    const key = locale.toLowerCase()
    if (seen.has(key))
      throw new BadRequestError(
        `creatorMode.localizedTitles[${index}].locale: locale "${locale}" is given twice`,
        'DUPLICATE_LOCALE',
      )
    seen.add(key)
  }
}

/**
 * Changes only the fields sent (nested objects field by field; `localizedTitles` is replaced whole). The
 * configuration is the whole account's, so a key scoped to some deployments may read it but not change it.
 */
export async function updateAppConfig(
  storage: Storage,
  actor: Actor,
  input: UpdateAppConfigInput,
  now: number,
): Promise<AppConfigResponse> {
  requireAction(actor, 'SettingsManage')
  assertAccountWide(actor, 'Changing the app configuration')
  assertDistinctLocales(input.creatorMode?.localizedTitles ?? [])
  const { appConfigs } = storage.tables
  // Read and written in one transaction, so two changes of different fields at once both survive. The row is
  // claimed first (made with the defaults when missing): on Postgres a second change waits there until this one
  // commits and then reads what it wrote, where reading first would let it write over this change.
  return storage.transaction(async (tx) => {
    await tx
      .insert(appConfigs)
      .values({ accountId: actor.accountId, config: {}, updatedAt: now })
      .onConflictDoUpdate({ target: appConfigs.accountId, set: { updatedAt: now } })
    const current = await storedAppConfig(storage, tx, actor.accountId)
    const next: AppConfigResponse = {
      appTheme: { ...current.appTheme, ...input.appTheme },
      applyThemeGlobally: input.applyThemeGlobally ?? current.applyThemeGlobally,
      creatorMode: { ...current.creatorMode, ...input.creatorMode },
      embedding: { ...current.embedding, ...input.embedding },
    }
    await tx
      .insert(appConfigs)
      .values({ accountId: actor.accountId, config: next, updatedAt: now })
      .onConflictDoUpdate({ target: appConfigs.accountId, set: { config: next, updatedAt: now } })
    return next
  })
}

async function storedSettings(context: ManagementContext): Promise<AIEngineerSettings> {
  const { aiEngineerSettings } = context.storage.tables
  const row = await first(
    context.db.select().from(aiEngineerSettings).where(eq(aiEngineerSettings.deploymentId, context.deploymentId)),
  )
  const settings = row?.settings ?? {}
  return {
    chatThreadPolicies: (settings.chatThreadPolicies as ChatThreadPolicyDTO[] | undefined) ?? [],
    instructions: (settings.instructions as string | null | undefined) ?? null,
    updatedAt: isoTimeOrNull(row?.updatedAt ?? null),
  }
}

export async function getAIEngineerSettings(context: ManagementContext): Promise<AIEngineerSettings> {
  requireAction(context.actor, 'ContentRead')
  return storedSettings(context)
}

/** Changes the fields sent; `chatThreadPolicies` is replaced whole, and applies to the next chat request. */
export async function updateAIEngineerSettings(
  context: ManagementContext,
  input: UpdateAIEngineerSettingsInput,
): Promise<AIEngineerSettings> {
  requireAction(context.actor, 'SettingsManage')
  const { aiEngineerSettings } = context.storage.tables
  return writing(context, async (context) => {
    // Claimed before it is read, as the app configuration is, so two changes of different fields both survive.
    await context.tx
      .insert(aiEngineerSettings)
      .values({ deploymentId: context.deploymentId, settings: {}, updatedAt: context.now })
      .onConflictDoUpdate({ target: aiEngineerSettings.deploymentId, set: { updatedAt: context.now } })
    const current = await storedSettings(context)
    const settings = {
      chatThreadPolicies: input.chatThreadPolicies ?? current.chatThreadPolicies,
      instructions: input.instructions === undefined ? current.instructions : input.instructions,
    }
    await context.tx
      .insert(aiEngineerSettings)
      .values({ deploymentId: context.deploymentId, settings, updatedAt: context.now })
      .onConflictDoUpdate({ target: aiEngineerSettings.deploymentId, set: { settings, updatedAt: context.now } })
    return storedSettings(context)
  })
}
