CREATE TABLE accounts (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  name TEXT NOT NULL UNIQUE,
  plan TEXT NOT NULL CHECK (plan IN ('free', 'starter', 'premium', 'enterprise')),
  max_external_users INTEGER NOT NULL DEFAULT 10000,
  show_dashboard_chat INTEGER NOT NULL DEFAULT 1,
  created_at INTEGER NOT NULL
);

CREATE TABLE api_keys (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  key_hash TEXT NOT NULL UNIQUE,
  key_prefix TEXT NOT NULL,
  admin INTEGER NOT NULL DEFAULT 0,
  deployment_scope TEXT,
  revoked_at INTEGER,
  created_at INTEGER NOT NULL
);
CREATE UNIQUE INDEX api_keys_account_name ON api_keys (account_id, name);

CREATE TABLE deployments (
  id INTEGER PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  model TEXT NOT NULL,
  token_auth_enabled INTEGER NOT NULL DEFAULT 0,
  token_auth_secret TEXT,
  created_at INTEGER NOT NULL
);
CREATE INDEX deployments_account ON deployments (account_id);

CREATE TABLE deployment_branches (
  deployment_id INTEGER NOT NULL REFERENCES deployments(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  is_default INTEGER NOT NULL DEFAULT 0,
  position INTEGER NOT NULL,
  PRIMARY KEY (deployment_id, name)
);

CREATE TABLE agents (
  id INTEGER PRIMARY KEY,
  deployment_id INTEGER NOT NULL REFERENCES deployments(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  kind TEXT NOT NULL DEFAULT 'analyst' CHECK (kind IN ('analyst', 'scripted')),
  config TEXT
);
CREATE INDEX agents_deployment ON agents (deployment_id);

CREATE TABLE embed_tenants (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  use_creator_mode INTEGER NOT NULL DEFAULT 0,
  display_name TEXT,
  created_at INTEGER NOT NULL
);
CREATE UNIQUE INDEX embed_tenants_account_name ON embed_tenants (account_id, name);

CREATE TABLE users (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  kind TEXT NOT NULL CHECK (kind IN ('internal', 'external')),
  identity TEXT NOT NULL,
  email TEXT,
  display_name TEXT,
  picture TEXT,
  security_context TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE UNIQUE INDEX users_account_kind_identity ON users (account_id, kind, identity);

CREATE TABLE groups (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  embed_tenant_id INTEGER REFERENCES embed_tenants(id) ON DELETE CASCADE,
  namespace TEXT NOT NULL DEFAULT 'group' CHECK (namespace IN ('group', 'tenant_group')),
  name TEXT NOT NULL,
  description TEXT,
  created_at INTEGER NOT NULL
);
CREATE UNIQUE INDEX groups_scope_name ON groups (account_id, ifnull(embed_tenant_id, 0), namespace, name);

CREATE TABLE user_attribute_definitions (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  embed_tenant_id INTEGER REFERENCES embed_tenants(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  type TEXT NOT NULL CHECK (type IN ('string', 'number', 'boolean', 'string_array', 'number_array')),
  display_name TEXT,
  default_value TEXT,
  description TEXT,
  created_at INTEGER NOT NULL
);
CREATE UNIQUE INDEX user_attribute_definitions_scope_name
  ON user_attribute_definitions (account_id, ifnull(embed_tenant_id, 0), name);

CREATE TABLE user_attribute_values (
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  attribute_id INTEGER NOT NULL REFERENCES user_attribute_definitions(id) ON DELETE CASCADE,
  value TEXT NOT NULL,
  PRIMARY KEY (user_id, attribute_id)
);
CREATE INDEX user_attribute_values_attribute ON user_attribute_values (attribute_id);

CREATE TABLE group_memberships (
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  group_id INTEGER NOT NULL REFERENCES groups(id) ON DELETE CASCADE,
  PRIMARY KEY (user_id, group_id)
);
CREATE INDEX group_memberships_group ON group_memberships (group_id);

CREATE TABLE server_secrets (
  name TEXT PRIMARY KEY,
  value TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
