-- Leak reports (issue 31). revoked_reason: why the key was revoked when it was not its owner's or an operator's
-- choice ('exposed': a secret-scanning report or `npm run keys -- report-leak` named its secret); exposed_at: when.
ALTER TABLE api_keys ADD COLUMN revoked_reason text CHECK (revoked_reason IN ('exposed'));
ALTER TABLE api_keys ADD COLUMN exposed_at timestamptz;

-- A reported secret is found by its SHA-256, current or replaced (a leaked old secret still names its key).
CREATE INDEX api_keys_secret_hash_idx ON api_keys (secret_hash);
CREATE INDEX api_keys_previous_secret_hash_idx ON api_keys (previous_secret_hash) WHERE previous_secret_hash IS NOT NULL;
