import { Elysia, t } from 'elysia'
import { jsonBody, noBody } from '../../core/strict-json'
import { actorOf, readKeyPolicy, writeKeyPolicy } from '../access/key-policies'
import { getDbtSyncJob, startDbtSync } from '../settings/dbt-sync'
import {
  DEPLOYMENT,
  DeploymentParams,
  doc,
  managementAccess,
  NoContent,
  type ManagementAccessDeps,
} from './management-macro'
import {
  AIEngineerSettings,
  AppConfigResponse,
  CreateNotificationInput,
  DbtSyncJob,
  DbtSyncResponse,
  Id,
  KeyPolicy,
  Notification,
  NotificationsListQuery,
  NotificationsListResponse,
  StartDbtSyncInput,
  UpdateAIEngineerSettingsInput,
  UpdateAppConfigInput,
  UpdateKeyPolicyInput,
  UpdateNotificationInput,
} from '../model'
import {
  createNotification,
  deleteNotification,
  getNotification,
  listNotifications,
  updateNotification,
} from '../reports/notifications'
import { getAIEngineerSettings, getAppConfig, updateAIEngineerSettings, updateAppConfig } from '../settings/settings'
import { modelQueryCheck } from '../dashboards/query-check'
import type { SemanticService } from '../../semantic/semantic-service'
import type { ClusterBus } from '../../../lib/cluster-bus'
import type { Logger } from '../../../lib/logger'

const NotificationParams = t.Object({ deploymentId: Id, notificationId: Id })
const SyncJobParams = t.Object({ deploymentId: Id, syncJobId: t.String({ minLength: 1, maxLength: 100 }) })
const KeyParams = t.Object({ keyId: Id })

/**
 * What the settings routes need: the management macro's dependencies, the semantic layer to check filters, and the
 * cluster bus to announce changed chat thread policies to every node (which keep them in memory).
 */
export interface SettingsRoutesDeps extends ManagementAccessDeps {
  semantic: SemanticService
  bus: Pick<ClusterBus, 'publish'>
  logger: Logger
}

/** Notifications, dbt syncs, app configuration, AI engineer settings and key policies: HTTP glue. */
export function settingsRoutes(deps: SettingsRoutesDeps) {
  return new Elysia({ name: 'management-settings', seed: deps.instanceId })
    .use(notificationRoutes(deps))
    .use(deploymentSettingRoutes(deps))
    .use(accountSettingRoutes(deps))
}

/** Notifications of dashboards, their filters and time grains checked against the model. */
function notificationRoutes(deps: SettingsRoutesDeps) {
  // A notification's filters and time grains are the dashboard's, checked against the model as a dashboard's are.
  const controlsCheck = modelQueryCheck(deps)
  return new Elysia({ name: 'management-notifications', seed: deps.instanceId })
    .use(managementAccess(deps))
    .get(`${DEPLOYMENT}/notifications`, ({ context, query }) => listNotifications(context, query), {
      management: true,
      params: DeploymentParams,
      query: NotificationsListQuery,
      response: { 200: NotificationsListResponse },
      detail: doc(
        'Notifications',
        'List notifications',
        'Filters: `dashboardPublicId`; `recipientUserId` or `recipientEmail` (console user); `recipientEmbedTenantName` with `recipientExternalId` (embed user, both or neither).',
      ),
    })
    .post(
      `${DEPLOYMENT}/notifications`,
      async ({ context, body, status }) =>
        status(201, await createNotification(context, body, await controlsCheck(context.deploymentId))),
      {
        management: true,
        params: DeploymentParams,
        ...jsonBody(CreateNotificationInput),
        response: { 201: Notification },
        detail: doc(
          'Notifications',
          'Create a notification',
          'Exactly one of `dashboardId` and `dashboardPublicId` (400 otherwise).',
        ),
      },
    )
    .get(
      `${DEPLOYMENT}/notifications/:notificationId`,
      ({ context, params }) => getNotification(context, params.notificationId),
      {
        management: true,
        params: NotificationParams,
        response: { 200: Notification },
        detail: doc('Notifications', 'Get a notification'),
      },
    )
    .patch(
      `${DEPLOYMENT}/notifications/:notificationId`,
      async ({ context, params, body }) =>
        updateNotification(context, params.notificationId, body, await controlsCheck(context.deploymentId)),
      {
        management: true,
        params: NotificationParams,
        ...jsonBody(UpdateNotificationInput),
        response: { 200: Notification },
        detail: doc('Notifications', 'Update a notification'),
      },
    )
    .delete(
      `${DEPLOYMENT}/notifications/:notificationId`,
      async ({ context, params, status }) => {
        await deleteNotification(context, params.notificationId)
        return status(204, undefined)
      },
      {
        management: true,
        ...noBody,
        params: NotificationParams,
        response: NoContent,
        detail: doc('Notifications', 'Delete a notification'),
      },
    )
}

/** A deployment's dbt syncs and AI engineer settings. */
function deploymentSettingRoutes(deps: SettingsRoutesDeps) {
  return new Elysia({ name: 'management-deployment-settings', seed: deps.instanceId })
    .use(managementAccess(deps))
    .post(
      `${DEPLOYMENT}/dbt-sync`,
      async ({ context, body, deployment, status }) =>
        status(201, await startDbtSync(context, deployment.branches, body ?? {})),
      {
        management: true,
        params: DeploymentParams,
        ...jsonBody(StartDbtSyncInput, { optional: true }),
        response: { 201: DbtSyncResponse },
        detail: doc(
          'dbt sync',
          'Start a dbt sync',
          'Creates a sync job (queued, then running, then succeeded; simulated, no dbt runs here). Its status is at `GET .../dbt-sync/{syncJobId}`. Added in v0.2.1.',
        ),
      },
    )
    .get(`${DEPLOYMENT}/dbt-sync/:syncJobId`, ({ context, params }) => getDbtSyncJob(context, params.syncJobId), {
      management: true,
      params: SyncJobParams,
      response: { 200: DbtSyncJob },
      detail: doc('dbt sync', 'Get a dbt sync job'),
    })
    .get(`${DEPLOYMENT}/ai-engineer-settings`, ({ context }) => getAIEngineerSettings(context), {
      management: true,
      params: DeploymentParams,
      response: { 200: AIEngineerSettings },
      detail: doc('AI engineer', 'Get AI engineer settings'),
    })
    .patch(
      `${DEPLOYMENT}/ai-engineer-settings`,
      async ({ context, body }) => {
        const settings = await updateAIEngineerSettings(context, body)
        // Stored: every node reads the policies again (one that does not hear it, within their bounded age).
        await deps.bus
          .publish({ type: 'policies-changed', deploymentId: context.deploymentId })
          .catch((error: unknown) => deps.logger.warn('announcing changed chat thread policies failed', { error }))
        return settings
      },
      {
        management: true,
        params: DeploymentParams,
        ...jsonBody(UpdateAIEngineerSettingsInput),
        response: { 200: AIEngineerSettings },
        detail: doc(
          'AI engineer',
          'Update AI engineer settings',
          '`chatThreadPolicies` is replaced whole; deny wins. Needs `SettingsManage`.',
        ),
      },
    )
}

/** The account's app configuration and API key policies. */
function accountSettingRoutes(deps: SettingsRoutesDeps) {
  const { storage, clock } = deps
  return new Elysia({ name: 'management-account-settings', seed: deps.instanceId })
    .use(managementAccess(deps))
    .get('/api/v1/app-config', async ({ caller }) => getAppConfig(storage, await actorOf(storage, caller)), {
      apiKey: true,
      response: { 200: AppConfigResponse },
      detail: doc('App configuration', "Get the key's account app configuration"),
    })
    .patch(
      '/api/v1/app-config',
      async ({ caller, body }) => updateAppConfig(storage, await actorOf(storage, caller), body, clock()),
      {
        apiKey: true,
        ...jsonBody(UpdateAppConfigInput),
        response: { 200: AppConfigResponse },
        detail: doc(
          'App configuration',
          'Update the app configuration',
          'Only the fields sent change. Needs `SettingsManage` and a key not scoped to deployments (the configuration is account-wide).',
        ),
      },
    )
    .get(
      '/api/v1/api-keys/:keyId/policy',
      async ({ caller, params }) => readKeyPolicy(storage, await actorOf(storage, caller), params.keyId),
      {
        adminKey: true,
        params: KeyParams,
        response: { 200: KeyPolicy },
        detail: doc(
          'Access control',
          "Get an API key's policy",
          'Admin key with `SecretsManage`; the target key must be within its reach (a scoped key reaches only keys scoped to a subset of its deployments).',
        ),
      },
    )
    .put(
      '/api/v1/api-keys/:keyId/policy',
      async ({ caller, params, body }) =>
        writeKeyPolicy(storage, await actorOf(storage, caller), params.keyId, body, clock()),
      {
        adminKey: true,
        params: KeyParams,
        ...jsonBody(UpdateKeyPolicyInput),
        response: { 200: KeyPolicy },
        detail: doc(
          'Access control',
          "Set an API key's policy",
          'Exactly one of `role` (admin, editor, viewer) and `actions`. Admin key with `SecretsManage`; the target key must be within its reach, and only actions the caller holds can be granted.',
        ),
      },
    )
}
