-- Transactional outbox for API key events (api_key.created/revoked/rolled, libs/contracts
-- api-key-events.ts): written in the same transaction as the key change, published by the relay of
-- libs/outbox in id order, which stamps sent_at. The columns are those every service's outbox has
-- (libs/outbox). user_id is NULL for a system key.
CREATE TABLE outbox (
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

CREATE INDEX outbox_unsent_idx ON outbox (id) WHERE sent_at IS NULL;
