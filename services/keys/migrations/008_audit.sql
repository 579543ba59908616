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

-- audit.recorded events (libs/contracts audit.ts) for identity's feed behind GET /api/AuditLog:
-- written with the entry, published by a relay of their own (libs/outbox), so the service's other
-- events keep their outbox, order and metrics unchanged. Same columns as every outbox.
CREATE TABLE audit_outbox (
  id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  event_id      uuid NOT NULL UNIQUE,
  user_id       bigint,
  type          text NOT NULL,
  routing_key   text NOT NULL,
  payload       jsonb NOT NULL,
  occurred_at   timestamptz NOT NULL,
  sent_at       timestamptz,
  attempts      integer NOT NULL DEFAULT 0,
  last_error    text,
  trace_context jsonb
);

CREATE INDEX audit_outbox_unsent_idx ON audit_outbox (id) WHERE sent_at IS NULL;
