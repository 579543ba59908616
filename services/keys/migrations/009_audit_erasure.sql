-- Erasure of a deleted user's personal data from the audit trail (issue 32 item 5; libs/audit
-- audit-erasure.ts, docs/architecture.md). An erased row keeps its place, id, link and hash; its
-- client address and the personal fields of its views become null and `erased` is set. Its hash no
-- longer recomputes, so the `audit.erased` entry appended in the same transaction lists the digest
-- of what the row now reads, and verify checks it against that. The same file in every service
-- with an audit trail (identity, keys, billing).
ALTER TABLE audit_log ADD COLUMN erased boolean NOT NULL DEFAULT false;

-- The trigger now lets one UPDATE through: announced by the transaction-local setting audit.erasing,
-- touching only the erasable columns, and only to erase (never to put data back, never to unmark).
CREATE OR REPLACE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' AND current_setting('audit.pruning', true) = 'on' THEN
    RETURN OLD;
  END IF;
  IF TG_OP = 'UPDATE' AND current_setting('audit.erasing', true) = 'on'
     AND NEW.erased AND NEW.client_address IS NULL
     AND (NEW.id, NEW.occurred_at, NEW.actor_type, NEW.actor_id, NEW.request_id, NEW.action, NEW.target_type, NEW.target_id, NEW.user_id, NEW.prev_hash, NEW.hash)
         IS NOT DISTINCT FROM
         (OLD.id, OLD.occurred_at, OLD.actor_type, OLD.actor_id, OLD.request_id, OLD.action, OLD.target_type, OLD.target_id, OLD.user_id, OLD.prev_hash, OLD.hash)
  THEN
    RETURN NEW;
  END IF;
  RAISE EXCEPTION 'audit_log is append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
END
$$;
