-- Expiry reminders (issue 30): api_key.expiring.v1 30, 7 and 1 days before a key's expires_at, and
-- api_key.expired.v1 once it has passed. One row per reminder sent, written by the sweep in the same
-- transaction as the outbox event, so each is published exactly when it is recorded, and the primary
-- key makes it once per key, kind and expiry date however many replicas sweep at the same time. The
-- expiry date is part of the key: a key whose expires_at moves gets the reminders of its new date
-- (docs/architecture.md, decision on the expiry sweep). event_id is the outbox event's id.
CREATE TABLE key_expiry_reminders (
  key_id      uuid NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
  kind        text NOT NULL CHECK (kind IN ('expiring_30', 'expiring_7', 'expiring_1', 'expired')),
  expires_at  timestamptz NOT NULL,
  event_id    uuid NOT NULL UNIQUE DEFAULT gen_random_uuid(),
  recorded_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (key_id, kind, expires_at)
);

-- The sweep's scan: unrevoked keys with an expiry, by that expiry.
CREATE INDEX api_keys_expiry_idx ON api_keys (expires_at) WHERE expires_at IS NOT NULL AND revoked_at IS NULL;
