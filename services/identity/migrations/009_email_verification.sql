-- E-mail verification (issue 32): null until the owner follows the link sent at registration.
-- Accounts from before this migration start unverified too (their owners ask for a link).
ALTER TABLE users ADD COLUMN email_verified_at timestamptz;

-- Verification tokens: only the SHA-256 is kept (256 random bits), single use, 7 days.
CREATE TABLE email_verifications (
  token_hash  bytea PRIMARY KEY CHECK (length(token_hash) = 32),
  user_id     bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  created_at  timestamptz NOT NULL DEFAULT now(),
  expires_at  timestamptz NOT NULL,
  used_at     timestamptz
);

CREATE INDEX email_verifications_user_idx ON email_verifications (user_id, created_at DESC);
