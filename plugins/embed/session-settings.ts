// The schema moved to the auth area (the user provisioner's interface there takes it); this path stays until the
// chat and semantic areas import it from there.
export * from '../auth/session-settings'
