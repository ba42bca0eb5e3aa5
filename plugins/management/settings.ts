import { eq } from 'drizzle-orm'
import type { Storage } from '../../db/client'
import { aiEngineerSettings, appConfigs } from '../../db/schema'
import { assertAccountWide } from '../auth/access'
import { requireAction, type Actor } from './access-control'
import { isoTimeOrNull, type ManagementContext } from './context'
import type {
  AIEngineerSettings,
  AppConfigResponse,
  ChatThreadPolicyDTO,
  UpdateAIEngineerSettingsInput,
  UpdateAppConfigInput,
} from './model'

/** The app configuration of an account that never changed it. */
export const DEFAULT_APP_CONFIG: AppConfigResponse = {
  appTheme: { mode: 'system', primaryColor: null },
  applyThemeGlobally: false,
  creatorMode: { showGeneratedSql: false, showSemanticSql: false, localizedTitles: [] },
  embedding: { locale: null },
}

function storedAppConfig(storage: Storage, accountId: number): AppConfigResponse {
  const row = storage.db.select().from(appConfigs).where(eq(appConfigs.accountId, accountId)).get()
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
export function getAppConfig(storage: Storage, actor: Actor): AppConfigResponse {
  requireAction(actor, 'ContentRead')
  return storedAppConfig(storage, actor.accountId)
}

/**
 * Changes only the fields sent (nested objects field by field; `localizedTitles` is replaced whole). The
 * configuration is the whole account's, so a key scoped to some deployments may read it but not change it.
 */
export function updateAppConfig(
  storage: Storage,
  actor: Actor,
  input: UpdateAppConfigInput,
  now: number,
): AppConfigResponse {
  requireAction(actor, 'SettingsManage')
  assertAccountWide(actor, 'Changing the app configuration')
  const current = storedAppConfig(storage, actor.accountId)
  const next: AppConfigResponse = {
    appTheme: { ...current.appTheme, ...input.appTheme },
    applyThemeGlobally: input.applyThemeGlobally ?? current.applyThemeGlobally,
    creatorMode: { ...current.creatorMode, ...input.creatorMode },
    embedding: { ...current.embedding, ...input.embedding },
  }
  storage.db
    .insert(appConfigs)
    .values({ accountId: actor.accountId, config: next, updatedAt: now })
    .onConflictDoUpdate({ target: appConfigs.accountId, set: { config: next, updatedAt: now } })
    .run()
  return next
}

function storedSettings(context: ManagementContext): AIEngineerSettings {
  const row = context.storage.db
    .select()
    .from(aiEngineerSettings)
    .where(eq(aiEngineerSettings.deploymentId, context.deploymentId))
    .get()
  const settings = row?.settings ?? {}
  return {
    chatThreadPolicies: (settings.chatThreadPolicies as ChatThreadPolicyDTO[] | undefined) ?? [],
    instructions: (settings.instructions as string | null | undefined) ?? null,
    updatedAt: isoTimeOrNull(row?.updatedAt ?? null),
  }
}

export function getAIEngineerSettings(context: ManagementContext): AIEngineerSettings {
  requireAction(context.actor, 'ContentRead')
  return storedSettings(context)
}

/** Changes the fields sent; `chatThreadPolicies` is replaced whole, and applies to the next chat request. */
export function updateAIEngineerSettings(
  context: ManagementContext,
  input: UpdateAIEngineerSettingsInput,
): AIEngineerSettings {
  requireAction(context.actor, 'SettingsManage')
  const current = storedSettings(context)
  const settings = {
    chatThreadPolicies: input.chatThreadPolicies ?? current.chatThreadPolicies,
    instructions: input.instructions === undefined ? current.instructions : input.instructions,
  }
  context.storage.db
    .insert(aiEngineerSettings)
    .values({ deploymentId: context.deploymentId, settings, updatedAt: context.now })
    .onConflictDoUpdate({ target: aiEngineerSettings.deploymentId, set: { settings, updatedAt: context.now } })
    .run()
  return storedSettings(context)
}
