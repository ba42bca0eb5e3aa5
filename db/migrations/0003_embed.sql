CREATE TABLE embed_sessions (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  public_id TEXT NOT NULL UNIQUE,
  secret_hash TEXT NOT NULL UNIQUE,
  account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  deployment_id INTEGER NOT NULL REFERENCES deployments(id) ON DELETE CASCADE,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  embed_tenant_id INTEGER REFERENCES embed_tenants(id) ON DELETE CASCADE,
  creator_mode INTEGER NOT NULL DEFAULT 0,
  settings TEXT NOT NULL,
  security_context TEXT NOT NULL,
  groups TEXT NOT NULL,
  user_attributes TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  exchanged_at INTEGER,
  expires_at INTEGER NOT NULL,
  revoked_at INTEGER
);
CREATE INDEX embed_sessions_expires ON embed_sessions (expires_at);
CREATE INDEX embed_sessions_user ON embed_sessions (user_id);
CREATE INDEX embed_sessions_tenant ON embed_sessions (embed_tenant_id);
CREATE INDEX embed_sessions_deployment ON embed_sessions (deployment_id);
CREATE INDEX embed_sessions_account ON embed_sessions (account_id);
