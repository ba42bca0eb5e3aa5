import { defineConfig } from 'drizzle-kit'

/**
 * Generates the Postgres migrations from the Postgres schema (`npm run db:generate`). The SQLite migrations stay
 * hand-written: they came first and hold triggers drizzle cannot describe. Every generated file is committed and
 * embedded in the binary through `db/migrations-pg/index.ts`.
 */
export default defineConfig({
  dialect: 'postgresql',
  schema: './db/schema-pg/index.ts',
  out: './db/migrations-pg',
})
