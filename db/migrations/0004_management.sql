CREATE TABLE folders (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  deployment_id INTEGER NOT NULL REFERENCES deployments(id) ON DELETE CASCADE,
  parent_id INTEGER REFERENCES folders(id),
  name TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX folders_deployment ON folders (deployment_id, created_at, id);

CREATE TABLE reports (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  deployment_id INTEGER NOT NULL REFERENCES deployments(id) ON DELETE CASCADE,
  folder_id INTEGER REFERENCES folders(id),
  name TEXT NOT NULL,
  query TEXT NOT NULL,
  definition TEXT,
  created_by_key_id INTEGER REFERENCES api_keys(id) ON DELETE SET NULL,
  last_viewed_at INTEGER,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX reports_deployment ON reports (deployment_id, created_at, id);
CREATE INDEX reports_folder ON reports (folder_id);

CREATE TABLE report_placements (
  report_id INTEGER NOT NULL REFERENCES reports(id) ON DELETE CASCADE,
  external_workbook_id TEXT NOT NULL,
  result_location TEXT NOT NULL,
  end_result_cell TEXT,
  connected_by_key_id INTEGER REFERENCES api_keys(id) ON DELETE SET NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (report_id, external_workbook_id)
);
CREATE INDEX report_placements_workbook ON report_placements (external_workbook_id);

CREATE TABLE report_snapshots (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  report_id INTEGER NOT NULL REFERENCES reports(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  query TEXT NOT NULL,
  fill_missing_rows TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX report_snapshots_report ON report_snapshots (report_id, created_at, id);

CREATE TABLE workbooks (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  deployment_id INTEGER NOT NULL REFERENCES deployments(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  slug TEXT,
  shared INTEGER NOT NULL DEFAULT 0,
  owner_key_id INTEGER REFERENCES api_keys(id) ON DELETE SET NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE UNIQUE INDEX workbooks_deployment_slug ON workbooks (deployment_id, slug);
CREATE INDEX workbooks_deployment ON workbooks (deployment_id, created_at, id);

CREATE TABLE dashboards (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  deployment_id INTEGER NOT NULL REFERENCES deployments(id) ON DELETE CASCADE,
  workbook_id INTEGER NOT NULL UNIQUE REFERENCES workbooks(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  published INTEGER NOT NULL DEFAULT 0,
  public_id TEXT UNIQUE,
  widgets TEXT NOT NULL,
  filters TEXT NOT NULL,
  time_grains TEXT NOT NULL,
  ai_widget_threads TEXT NOT NULL,
  restrict_data_download INTEGER NOT NULL DEFAULT 0,
  use_board_dashboards INTEGER NOT NULL DEFAULT 0,
  from_shared_workspace INTEGER NOT NULL DEFAULT 0,
  checksum TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX dashboards_deployment ON dashboards (deployment_id, created_at, id);

CREATE TABLE notifications (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  deployment_id INTEGER NOT NULL REFERENCES deployments(id) ON DELETE CASCADE,
  dashboard_id INTEGER NOT NULL REFERENCES dashboards(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  frequency TEXT NOT NULL CHECK (frequency IN ('hourly', 'daily', 'weekly', 'monthly')),
  time_of_day TEXT,
  enabled INTEGER NOT NULL DEFAULT 1,
  recipients TEXT NOT NULL,
  filters TEXT NOT NULL,
  time_grains TEXT NOT NULL,
  created_by_key_id INTEGER REFERENCES api_keys(id) ON DELETE SET NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX notifications_deployment ON notifications (deployment_id, created_at, id);

CREATE TABLE dbt_sync_jobs (
  id TEXT PRIMARY KEY,
  deployment_id INTEGER NOT NULL REFERENCES deployments(id) ON DELETE CASCADE,
  branch_name TEXT NOT NULL,
  workflow_id TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('queued', 'running', 'succeeded', 'failed')),
  requested_by_key_id INTEGER REFERENCES api_keys(id) ON DELETE SET NULL,
  created_at INTEGER NOT NULL,
  started_at INTEGER,
  finished_at INTEGER
);
CREATE INDEX dbt_sync_jobs_deployment ON dbt_sync_jobs (deployment_id, created_at);

CREATE TABLE app_configs (
  account_id INTEGER PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,
  config TEXT NOT NULL,
  updated_at INTEGER NOT NULL
);

CREATE TABLE ai_engineer_settings (
  deployment_id INTEGER PRIMARY KEY REFERENCES deployments(id) ON DELETE CASCADE,
  settings TEXT NOT NULL,
  updated_at INTEGER NOT NULL
);

CREATE TABLE api_key_policies (
  api_key_id INTEGER PRIMARY KEY REFERENCES api_keys(id) ON DELETE CASCADE,
  role TEXT NOT NULL CHECK (role IN ('admin', 'editor', 'viewer', 'custom')),
  actions TEXT NOT NULL,
  updated_at INTEGER NOT NULL
);
