import type { Storage } from '../db/client'
import { createApiKeyAuthenticator } from '../plugins/auth/api-keys'
import type { AuthDeps } from '../plugins/auth'
import { createDirectory, type Directory } from '../plugins/auth/directory'
import type { ApiKeyAuthenticator } from '../plugins/auth/model'
import type { AgentFactoryOptions } from '../plugins/agent/agent-factory'
import type { AgentFactory } from '../plugins/chat/run/agent'
import type { ChatDeps } from '../plugins/chat'
import { createRunRegistry } from '../plugins/chat/registry/create-run-registry'
import type { RunRegistry } from '../plugins/chat/registry/run-registry'
import type { CoreDeps } from '../plugins/core'
import type { EmbedDeps } from '../plugins/embed'
import type { ManagementDeps } from '../plugins/management'
import type { OperationsDeps } from '../plugins/operations'
import type { CorsDeps } from '../plugins/operations/cors'
import type { SemanticDeps } from '../plugins/semantic'
import type { SemanticStartupDeps } from '../plugins/semantic/startup'
import type { WebDeps } from '../plugins/web'
import { createEmbedTokens, type EmbedTokens } from '../plugins/embed/embed-tokens'
import { createUserProvisioner, type Provisioning } from '../plugins/embed/provisioning'
import { userChangesOver } from '../plugins/auth/user-changes'
import { bindSemanticTools } from '../plugins/semantic/tools'
import { createSemanticService, type SemanticService } from '../plugins/semantic/semantic-service'
import type { DataSourceConfig } from '../plugins/semantic/sources/data-source'
import { MemoryClusterBus, type ClusterBus } from '../lib/cluster-bus'
import type { Config } from '../lib/config'
import { Lifecycle } from '../lib/lifecycle'
import { createLogger, resolveLogFormat, type Logger } from '../lib/logger'
import { Metrics } from '../lib/metrics'
import { RedisClusterBus } from '../lib/redis-cluster-bus'
import { createRequestLimits } from './request-limits'
import { randomToken } from '../lib/secrets'

/**
 * Everything the app needs from outside, passed in so a test builds a fresh app with an in-memory database and a
 * controllable clock in one line. Feature areas add their services here.
 */
export interface AppDeps {
  config: Config
  storage: Storage
  logger: Logger
  metrics: Metrics
  /** Milliseconds since the epoch; replaceable in tests. */
  clock: () => number
  /** Distinguishes apps in one process, so plugins of two apps are never merged. */
  instanceId: string
  directory: Directory
  authenticateApiKey: ApiKeyAuthenticator
  /** Signs embed tokens and checks them (at the request rate limit of their session). */
  embedTokens: EmbedTokens
  /** Identities of chat and SQL requests to stored users, and generate-session's (the embed area's provisioning rules). */
  users: Provisioning
  lifecycle: Lifecycle
  /** The agent that answers for an agent row (analyst, LLM or scripted). */
  agents: AgentFactory
  /** The semantic layer: models per deployment branch, the demo data, queries (`serviceMeta`, `serviceSqlApi`). */
  semantic: SemanticService
  /** Active chat runs: in this process, or shared with other nodes through Redis (`REDIS_URL`). */
  registry: RunRegistry
  /** What nodes tell each other (revocations, changed policies, aborts): this process alone, or Redis pub/sub. */
  bus: ClusterBus
}

/**
 * Each plugin names only what it needs, as its own type; the app's dependencies must provide all of it. Listing
 * them here makes a plugin that asks for a field AppDeps lacks, or types differently, fail typecheck next to
 * AppDeps rather than at some call site.
 */
type PluginDeps = AuthDeps &
  ChatDeps &
  CoreDeps &
  CorsDeps &
  EmbedDeps &
  ManagementDeps &
  OperationsDeps &
  SemanticDeps &
  SemanticStartupDeps &
  WebDeps
type Satisfies<Given extends Wanted, Wanted> = Given
export type AppDepsServeEveryPlugin = Satisfies<AppDeps, PluginDeps>

export type DepsOverrides = Partial<Omit<AppDeps, 'config' | 'storage'>> & {
  /** The bootstrap file's data sources by deployment id (resolved from the environment at start). */
  dataSources?: ReadonlyMap<number, DataSourceConfig>
}

/** Builds the dependencies of one app over an open storage. */
export function createDeps(config: Config, storage: Storage, overrides: DepsOverrides = {}): AppDeps {
  const logger = overrides.logger ?? createLogger(config.logLevel, {}, undefined, resolveLogFormat(config.logFormat))
  const clock = overrides.clock ?? Date.now
  const metrics = overrides.metrics ?? new Metrics({ prefix: config.metricsPrefix })
  const limits = createRequestLimits(config, clock, metrics)
  const lifecycle = overrides.lifecycle ?? new Lifecycle()
  const bus =
    overrides.bus ??
    (config.redisUrl === undefined ? new MemoryClusterBus() : new RedisClusterBus({ url: config.redisUrl, logger }))
  const registry = overrides.registry ?? createRunRegistry(config, { storage, logger, clock, bus })
  // Registered before the chat's own hook, so they run after it (hooks run last first): runs end (and reach Redis)
  // before the registry's connections close, and the registry stops before the bus it listens to.
  lifecycle.onShutdown(() => bus.close())
  lifecycle.onShutdown(() => registry.close())
  const semantic =
    overrides.semantic ??
    createSemanticService({
      config,
      logger,
      metrics,
      dataSources: overrides.dataSources,
      workers: config.queryLimits?.sqliteWorkers,
      fairShare: config.queryLimits,
    })
  return {
    config,
    storage,
    logger,
    metrics,
    clock,
    instanceId: overrides.instanceId ?? randomToken(8),
    // Several nodes read them again when another node's start applies the bootstrap (`bootstrap-applied`).
    directory: overrides.directory ?? createDirectory(storage, { bus, clock }),
    authenticateApiKey:
      overrides.authenticateApiKey ?? limits.forApiKeys(createApiKeyAuthenticator(storage, { bus, clock })),
    embedTokens: overrides.embedTokens ?? limits.forEmbedTokens(createEmbedTokens(storage, clock)),
    // Several nodes keep the users that chat requests name in memory, off every turn's path to the shared database.
    users:
      overrides.users ??
      createUserProvisioner(
        storage,
        clock,
        userChangesOver(bus, (error) =>
          logger.warn('a user change could not be announced to the other nodes yet', { error }),
        ),
        bus.shared,
      ),
    lifecycle,
    registry,
    bus,
    semantic,
    agents:
      overrides.agents ??
      lazyAgentFactory({
        llm: config.llm,
        analystDelayMs: config.analystDelayMs,
        metrics,
        turnTimeoutMs: config.chatLimits.turnTimeoutMs,
        tools: (turn) =>
          bindSemanticTools(
            semantic,
            { deployment: turn.deployment, branchName: turn.branch, access: turn.access },
            logger,
          ),
      }),
  }
}

/**
 * The agent factory, loaded by the first chat turn rather than at start: initialising the AI SDK and its schema
 * library costs start-up time (10 to 25 ms measured) that nothing before the first turn needs.
 */
function lazyAgentFactory(options: AgentFactoryOptions): AgentFactory {
  let factory: AgentFactory | undefined
  return (agent) => {
    factory ??= (
      require('../plugins/agent/agent-factory') as typeof import('../plugins/agent/agent-factory')
    ).createAgentFactory(options)
    return factory(agent)
  }
}
