-- API keys. The secret is stored only as a SHA-256 hash (base64url); `version` orders cache writes.
CREATE TABLE api_keys (
  id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  key           text NOT NULL UNIQUE,
  secret_hash   text NOT NULL,
  name          text NOT NULL,
  scopes        text[] NOT NULL,
  owner_user_id bigint,
  environment   text NOT NULL CHECK (environment IN ('live', 'test')),
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now(),
  last_used_at  timestamptz,
  revoked_at    timestamptz,
  version       bigint NOT NULL DEFAULT 1
);

-- A user's keys, newest first (the dashboard's list).
CREATE INDEX api_keys_owner_created_idx ON api_keys (owner_user_id, created_at DESC) WHERE owner_user_id IS NOT NULL;
