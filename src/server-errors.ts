/** A start that cannot go on for a reason the operator can fix (a taken port): shown without a stack. */
export class StartupError extends Error {}
