/**
 * A deployment's stored `chatThreadPolicies` (the field of its AI engineer settings, as stored: the caller checks its
 * shape), or undefined; read on every chat request, so each backend reads it its cheapest way.
 */
export type ThreadPoliciesReader = (deploymentId: number) => unknown
