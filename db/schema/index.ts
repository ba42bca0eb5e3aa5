/** Every table of the service; each feature area adds its own file. */
export * from './foundation'
export * from './chat'
export * from './embed'
export * from './management'
export * from './performance'
