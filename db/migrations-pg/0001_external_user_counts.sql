-- The external-user limit is checked whenever a user is created: a counter kept by triggers instead of a count(*)
-- over every user of the account. Written by hand: drizzle describes tables, not triggers.
CREATE FUNCTION external_user_counts_track() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.kind = 'external' THEN
    UPDATE external_user_counts SET count = count - 1 WHERE account_id = OLD.account_id;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') AND NEW.kind = 'external' THEN
    INSERT INTO external_user_counts (account_id, count) VALUES (NEW.account_id, 1)
      ON CONFLICT (account_id) DO UPDATE SET count = external_user_counts.count + 1;
  END IF;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER users_count_insert AFTER INSERT ON users
  FOR EACH ROW WHEN (NEW.kind = 'external') EXECUTE FUNCTION external_user_counts_track();
--> statement-breakpoint
CREATE TRIGGER users_count_delete AFTER DELETE ON users
  FOR EACH ROW WHEN (OLD.kind = 'external') EXECUTE FUNCTION external_user_counts_track();
--> statement-breakpoint
CREATE TRIGGER users_count_update AFTER UPDATE OF kind, account_id ON users
  FOR EACH ROW WHEN (OLD.kind = 'external' OR NEW.kind = 'external') EXECUTE FUNCTION external_user_counts_track();
