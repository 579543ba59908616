-- Subscription events from billing already applied to users (written in the same transaction as
-- the user update), so a redelivered event changes nothing. (user_id, occurred_at, sequence) lets
-- an older event that arrives after a newer one (a retry overtaken) be recognised and skipped.
CREATE TABLE processed_events (
  event_id     uuid PRIMARY KEY,
  event_type   text NOT NULL,
  user_id      bigint NOT NULL,
  occurred_at  timestamptz NOT NULL,
  sequence     bigint NOT NULL,
  applied      boolean NOT NULL,
  processed_at timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX processed_events_user_idx ON processed_events (user_id, occurred_at DESC, sequence DESC);
