CREATE TABLE chat_threads (
  id TEXT PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  deployment_id INTEGER NOT NULL REFERENCES deployments(id) ON DELETE CASCADE,
  agent_id INTEGER NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  title TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX chat_threads_user ON chat_threads (user_id, agent_id, updated_at);
CREATE INDEX chat_threads_deployment ON chat_threads (deployment_id);

CREATE TABLE chat_messages (
  thread_id TEXT NOT NULL REFERENCES chat_threads(id) ON DELETE CASCADE,
  id TEXT NOT NULL,
  sort INTEGER NOT NULL,
  role TEXT NOT NULL CHECK (role IN ('user', 'assistant')),
  content TEXT NOT NULL DEFAULT '',
  graph_path TEXT,
  thinking TEXT,
  tool_call TEXT,
  attachments TEXT,
  status TEXT NOT NULL DEFAULT 'complete' CHECK (status IN ('complete', 'in_process', 'interrupted')),
  run_id TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (thread_id, id)
);
CREATE UNIQUE INDEX chat_messages_thread_sort ON chat_messages (thread_id, sort);
CREATE INDEX chat_messages_in_process ON chat_messages (status) WHERE status = 'in_process';

CREATE TABLE chat_runs (
  id TEXT PRIMARY KEY,
  thread_id TEXT NOT NULL REFERENCES chat_threads(id) ON DELETE CASCADE,
  message_id TEXT NOT NULL,
  branch TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('running', 'completed', 'failed', 'aborted', 'interrupted')),
  error TEXT,
  started_at INTEGER NOT NULL,
  ended_at INTEGER
);
CREATE INDEX chat_runs_thread ON chat_runs (thread_id);
CREATE INDEX chat_runs_running ON chat_runs (status) WHERE status = 'running';
