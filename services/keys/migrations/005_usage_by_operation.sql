-- Requests per key, operation (the gateway route's operationId), UTC hour and status class (issue 29),
-- added to in batches from the gateways like api_key_daily_usage (one upsert per row per flush, never
-- one per request). Rows older than USAGE_RETENTION_DAYS (default 90) are purged hourly.
CREATE TABLE api_key_operation_usage (
  key_id     uuid NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
  hour       timestamptz NOT NULL,
  operation  text NOT NULL CHECK (length(operation) BETWEEN 1 AND 100),
  status_2xx bigint NOT NULL DEFAULT 0,
  status_3xx bigint NOT NULL DEFAULT 0,
  status_4xx bigint NOT NULL DEFAULT 0,
  status_429 bigint NOT NULL DEFAULT 0,
  status_5xx bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (key_id, hour, operation)
);

-- The purge deletes by age across all keys.
CREATE INDEX api_key_operation_usage_hour_idx ON api_key_operation_usage (hour);
