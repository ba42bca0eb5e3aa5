/**
 * The Postgres tables of the service: the SQLite schema (`db/schema`) table for table and column for column, with
 * the same property names and the same JavaScript values, so one query serves both dialects.
 */
export * from './foundation'
export * from './chat'
export * from './embed'
export * from './management'
export * from './performance'
