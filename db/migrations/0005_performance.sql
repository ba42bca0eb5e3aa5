-- Lookups the hot paths make on every request, found by `npm run bench`.

-- A request's messageId is looked up without its thread (idempotent replays, rejoins that lost the chatId). Only
-- user messages carry a client's messageId, so assistant messages (most rows) stay out of the index.
CREATE INDEX chat_messages_id ON chat_messages (id) WHERE role = 'user';

-- Every mint prunes revoked sessions; without this index that is a scan of the whole table.
CREATE INDEX embed_sessions_revoked ON embed_sessions (revoked_at) WHERE revoked_at IS NOT NULL;

-- The external-user limit is checked whenever a user is created: a counter kept by triggers instead of a count(*)
-- over every user of the account (which grows with the account and is paid on each new user).
CREATE TABLE external_user_counts (
  account_id INTEGER PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,
  count INTEGER NOT NULL
);
INSERT INTO external_user_counts (account_id, count)
  SELECT account_id, count(*) FROM users WHERE kind = 'external' GROUP BY account_id;

CREATE TRIGGER users_count_insert AFTER INSERT ON users WHEN NEW.kind = 'external' BEGIN
  INSERT INTO external_user_counts (account_id, count) VALUES (NEW.account_id, 1)
    ON CONFLICT (account_id) DO UPDATE SET count = count + 1;
END;

CREATE TRIGGER users_count_delete AFTER DELETE ON users WHEN OLD.kind = 'external' BEGIN
  UPDATE external_user_counts SET count = count - 1 WHERE account_id = OLD.account_id;
END;

CREATE TRIGGER users_count_update AFTER UPDATE OF kind, account_id ON users
  WHEN OLD.kind = 'external' OR NEW.kind = 'external' BEGIN
  UPDATE external_user_counts SET count = count - 1 WHERE OLD.kind = 'external' AND account_id = OLD.account_id;
  INSERT INTO external_user_counts (account_id, count) SELECT NEW.account_id, 1 WHERE NEW.kind = 'external'
    ON CONFLICT (account_id) DO UPDATE SET count = count + 1;
END;
