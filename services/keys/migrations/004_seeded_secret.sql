-- The hash of the secret SEED_API_KEY's variables last set (issue 24.7). A seed key whose secret_hash
-- differs from it was rolled since: a restart must not put the replaced secret back, so it refuses.
ALTER TABLE api_keys ADD COLUMN seeded_secret_hash text;
UPDATE api_keys SET seeded_secret_hash = secret_hash WHERE owner_user_id IS NULL AND previous_secret_hash IS NULL;
