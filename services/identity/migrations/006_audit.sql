-- The audit trail (libs/audit): one row per change, written in the transaction of the change,
-- hash-chained (prev_hash is the hash of the row before; hash covers every other column but id),
-- so `npm run audit -- verify` names an edited or deleted row. before/after are the service's plain
-- views of the target: never a secret or a hash. The trigger makes the table append-only for every
-- role the service uses; only retention (libs/audit pruneAudit, announced by the transaction-local
-- setting audit.pruning) deletes, and nothing updates.
CREATE TABLE audit_log (
  id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  occurred_at    timestamptz NOT NULL,
  actor_type     text NOT NULL CHECK (actor_type IN ('user', 'operator', 'system')),
  actor_id       text,
  request_id     text,
  client_address text,
  action         text NOT NULL,
  target_type    text NOT NULL,
  target_id      text NOT NULL,
  user_id        bigint,
  before         jsonb,
  after          jsonb,
  prev_hash      text NOT NULL,
  hash           text NOT NULL
);

-- A user's own trail, newest first (GET /api/AuditLog); retention deletes by time.
CREATE INDEX audit_log_user_idx ON audit_log (user_id, id);
CREATE INDEX audit_log_occurred_idx ON audit_log (occurred_at);

CREATE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' AND current_setting('audit.pruning', true) = 'on' THEN
    RETURN OLD;
  END IF;
  RAISE EXCEPTION 'audit_log is append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
END
$$;

CREATE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE ON audit_log
  FOR EACH ROW EXECUTE FUNCTION audit_log_append_only();
CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log
  FOR EACH STATEMENT EXECUTE FUNCTION audit_log_append_only();

-- The feed behind GET /api/AuditLog (docs/architecture.md, decision 14): every entry of a user's
-- trail, identity's own (written with the entry) and keys' and billing's (from their
-- audit.recorded events, at least once: (service, entry_id) makes a redelivery a no-op). A copy
-- for reading; each service's audit_log chain stays the record that `npm run audit -- verify` checks.
CREATE TABLE audit_feed (
  id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  service        text NOT NULL,
  entry_id       bigint NOT NULL,
  occurred_at    timestamptz NOT NULL,
  actor          jsonb NOT NULL,
  action         text NOT NULL,
  target_type    text NOT NULL,
  target_id      text NOT NULL,
  user_id        bigint NOT NULL,
  before         jsonb,
  after          jsonb,
  UNIQUE (service, entry_id)
);

-- Newest first by when the change happened (entries of other services arrive in any order).
CREATE INDEX audit_feed_user_idx ON audit_feed (user_id, occurred_at, id);
CREATE INDEX audit_feed_occurred_idx ON audit_feed (occurred_at);
