-- Password reset tokens (issue 32): only the SHA-256 of the token is kept (the token is 256 random
-- bits, so a fast hash is enough: nothing to brute-force), single use, 15 minutes.
CREATE TABLE password_resets (
  token_hash  bytea PRIMARY KEY CHECK (length(token_hash) = 32),
  user_id     bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  created_at  timestamptz NOT NULL DEFAULT now(),
  expires_at  timestamptz NOT NULL,
  used_at     timestamptz
);

CREATE INDEX password_resets_user_idx ON password_resets (user_id);
