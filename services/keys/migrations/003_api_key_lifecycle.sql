-- Key lifecycle (issue 17).
-- expires_at: from that instant the key answers 401 (the gateway compares it with its own clock; no scheduler).
-- previous_secret_hash / previous_secret_ends_at: after a roll, the replaced secret's hash and the end of its
-- grace period; NULL when the key is in no grace period (then the gateway makes no second comparison).
ALTER TABLE api_keys ADD COLUMN expires_at timestamptz;
ALTER TABLE api_keys ADD COLUMN previous_secret_hash text;
ALTER TABLE api_keys ADD COLUMN previous_secret_ends_at timestamptz;

-- Requests per key, UTC day and status class, added to in batches from the gateways (one upsert per key
-- and day per flush, never one per request). 4xx excludes 429, which has its own column.
CREATE TABLE api_key_daily_usage (
  key_id uuid NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
  day date NOT NULL,
  status_2xx bigint NOT NULL DEFAULT 0,
  status_3xx bigint NOT NULL DEFAULT 0,
  status_4xx bigint NOT NULL DEFAULT 0,
  status_429 bigint NOT NULL DEFAULT 0,
  status_5xx bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (key_id, day)
);
