-- Account deletion (issue 32 item 5). The row stays as a tombstone (id, role, dates, the ended
-- sessions the gateway must keep refusing, and what foreign keys and processed events point at);
-- deleted_at marks it, and the personal columns hold placeholders (domain/delete-account.ts).
ALTER TABLE users ADD COLUMN deleted_at timestamptz;

-- Transactional outbox for identity's own events (user.deleted.v1): written in the deletion's
-- transaction, published by the relay of libs/outbox in id order. The columns every outbox has.
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
