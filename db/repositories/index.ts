import type { EmbedCatalogStatements, EmbedSessionStatements, EmbedUserStatements } from './embed'
import type { ThreadPoliciesReader } from './thread-policies'
import type { ThreadStore } from './threads'

/**
 * The hot paths whose statements are written for each backend: the storage picks its own modules when it opens
 * (`db/repositories/<area>/sqlite.ts` or `postgres.ts`, side by side), and each area's contract suite runs against
 * both. Each call builds a fresh instance over the storage's connection.
 */
export interface Repositories {
  /** The chat's threads, messages and runs, written through a group commit; `clock` stamps the writes. */
  threads(clock: () => number): ThreadStore
  /** A deployment's stored chat thread policies, read on every chat request. */
  threadPolicies(): ThreadPoliciesReader
  /** Minting and pruning embed sessions. */
  embedSessions(): EmbedSessionStatements
  /** The group and attribute catalog of provisioning, and group memberships. */
  embedCatalog(): EmbedCatalogStatements
  /** Users as provisioning reads and writes them: identity, profile, attribute values, access snapshot. */
  embedUsers(): EmbedUserStatements
}
