-- Plans are reference data seeded here; prices in minor units (cents) so no float rounding.
CREATE TABLE plans (
  id               text PRIMARY KEY,
  name             text NOT NULL,
  plan_type        smallint NOT NULL UNIQUE CHECK (plan_type BETWEEN 0 AND 3),
  price_minor      integer NOT NULL CHECK (price_minor >= 0),
  currency         text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  billing_interval text NOT NULL CHECK (billing_interval IN ('none', 'month', 'year', 'lifetime')),
  sort_order       smallint NOT NULL
);

INSERT INTO plans (id, name, plan_type, price_minor, currency, billing_interval, sort_order) VALUES
  ('free', 'Free', 0, 0, 'EUR', 'none', 0);
INSERT INTO plans (id, name, plan_type, price_minor, currency, billing_interval, sort_order) VALUES
  ('monthly', 'Monthly', 1, 499, 'EUR', 'month', 1);
INSERT INTO plans (id, name, plan_type, price_minor, currency, billing_interval, sort_order) VALUES
  ('yearly', 'Yearly', 2, 4999, 'EUR', 'year', 2);
INSERT INTO plans (id, name, plan_type, price_minor, currency, billing_interval, sort_order) VALUES
  ('lifetime', 'Lifetime', 3, 14999, 'EUR', 'lifetime', 3);

-- A user's subscriptions. status: active (until current_period_end; expiry is computed, not
-- written), replaced (ended early by another plan), canceled (ended at once: Lifetime), expired
-- (written only when a new subscription finds an active row whose period is over).
-- current_period_end is NULL for Lifetime. At most one active row per user.
CREATE TABLE subscriptions (
  id                   uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id              bigint NOT NULL,
  plan_id              text NOT NULL REFERENCES plans (id),
  plan_type            smallint NOT NULL CHECK (plan_type BETWEEN 1 AND 3),
  status               text NOT NULL CHECK (status IN ('active', 'replaced', 'canceled', 'expired')),
  current_period_start timestamptz NOT NULL,
  current_period_end   timestamptz,
  cancel_at_period_end boolean NOT NULL DEFAULT false,
  canceled_at          timestamptz,
  ended_at             timestamptz,
  created_at           timestamptz NOT NULL DEFAULT clock_timestamp()
);

CREATE UNIQUE INDEX subscriptions_one_active_per_user ON subscriptions (user_id) WHERE status = 'active';
CREATE INDEX subscriptions_user_created_idx ON subscriptions (user_id, created_at DESC);

-- Transactional outbox: written in the same transaction as the subscription change; the relay
-- publishes unsent rows in id order (so per user in commit order) and stamps sent_at.
CREATE TABLE outbox (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  event_id    uuid NOT NULL UNIQUE,
  user_id     bigint NOT NULL,
  type        text NOT NULL,
  routing_key text NOT NULL,
  payload     jsonb NOT NULL,
  occurred_at timestamptz NOT NULL,
  sent_at     timestamptz,
  attempts    integer NOT NULL DEFAULT 0,
  last_error  text
);

CREATE INDEX outbox_unsent_idx ON outbox (id) WHERE sent_at IS NULL;

-- Idempotency-Key answers, per user; rows older than the retention are ignored and purged.
CREATE TABLE idempotency_keys (
  user_id         bigint NOT NULL,
  key             text NOT NULL,
  request_hash    text NOT NULL,
  response_status smallint NOT NULL,
  response_body   jsonb NOT NULL,
  created_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, key)
);

CREATE INDEX idempotency_keys_created_idx ON idempotency_keys (created_at);
