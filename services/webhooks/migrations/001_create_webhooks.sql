-- A user's webhook endpoints. The signing secret must be usable for signing, so it cannot be
-- hashed: it is stored encrypted (AES-256-GCM, key from WEBHOOKS_SECRET_KEY; secret_box is
-- `v1.<iv>.<tag>.<ciphertext>` in base64url). After a rotation the replaced secret keeps signing,
-- as a second signature, until previous_secret_ends_at.
CREATE TABLE endpoints (
  id                      uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id                 bigint NOT NULL,
  url                     text NOT NULL,
  description             text,
  events                  text[] NOT NULL,
  enabled                 boolean NOT NULL DEFAULT true,
  -- 'owner' (paused through the API), or the sentence saying why deliveries gave up.
  disabled_reason         text,
  disabled_at             timestamptz,
  secret_box              text NOT NULL,
  previous_secret_box     text,
  previous_secret_ends_at timestamptz,
  created_at              timestamptz NOT NULL DEFAULT now(),
  updated_at              timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX endpoints_by_user ON endpoints (user_id, created_at DESC);
-- The fan-out reads the endpoints of one user subscribed to one event.
CREATE INDEX endpoints_by_event ON endpoints USING gin (events);

-- Bus events already fanned out: a redelivered event makes no second delivery.
CREATE TABLE processed_events (
  event_id     uuid PRIMARY KEY,
  type         text NOT NULL,
  deliveries   integer NOT NULL,
  processed_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX processed_events_by_age ON processed_events (processed_at);

-- One event for one endpoint. id is the webhook-id header of every attempt (and of a replay);
-- body is fixed at fan-out, so every attempt sends the same bytes. A claim moves next_attempt_at
-- a lease ahead and sets claim_token: a sender that dies mid-request leaves the delivery due again
-- once the lease ends (at least once), and a late answer of an expired claim changes nothing.
CREATE TABLE deliveries (
  id                 uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  endpoint_id        uuid NOT NULL REFERENCES endpoints (id) ON DELETE CASCADE,
  event_id           uuid NOT NULL,
  event_type         text NOT NULL,
  body               text NOT NULL,
  status             text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts           integer NOT NULL DEFAULT 0,
  -- Failed attempts since the schedule (re)started: the fan-out or a replay.
  retry_index        integer NOT NULL DEFAULT 0,
  schedule_started_at timestamptz NOT NULL DEFAULT now(),
  next_attempt_at    timestamptz,
  claim_token        uuid,
  last_status        integer,
  last_error         text,
  last_duration_ms   integer,
  created_at         timestamptz NOT NULL DEFAULT clock_timestamp(),
  delivered_at       timestamptz,
  UNIQUE (endpoint_id, event_id)
);
CREATE INDEX deliveries_due ON deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX deliveries_by_endpoint ON deliveries (endpoint_id, created_at DESC, id DESC);
CREATE INDEX deliveries_by_age ON deliveries (created_at) WHERE status <> 'pending';

-- Every attempt: what the endpoint answered (or why it did not) and how long it took.
CREATE TABLE delivery_attempts (
  id          bigserial PRIMARY KEY,
  delivery_id uuid NOT NULL REFERENCES deliveries (id) ON DELETE CASCADE,
  attempt     integer NOT NULL,
  started_at  timestamptz NOT NULL,
  status      integer,
  duration_ms integer NOT NULL,
  error       text
);
CREATE INDEX delivery_attempts_by_delivery ON delivery_attempts (delivery_id, id);
