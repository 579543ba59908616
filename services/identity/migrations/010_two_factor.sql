-- Two-factor sign-in (issue 32): a TOTP secret per user (RFC 6238; kept as is: the server must
-- compute the codes), confirmed once a first code matched; last_step refuses a code used before.
CREATE TABLE two_factor (
  user_id       bigint PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  secret        bytea NOT NULL CHECK (length(secret) = 20),
  confirmed_at  timestamptz,
  last_step     bigint NOT NULL DEFAULT 0,
  created_at    timestamptz NOT NULL DEFAULT now()
);

-- Recovery codes: shown once, only their SHA-256 kept, each usable once.
CREATE TABLE recovery_codes (
  code_hash  bytea PRIMARY KEY CHECK (length(code_hash) = 32),
  user_id    bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  used_at    timestamptz
);

CREATE INDEX recovery_codes_user_idx ON recovery_codes (user_id);

-- The short-lived challenge a password sign-in of a 2FA account answers; the second call completes it.
CREATE TABLE login_challenges (
  challenge_hash  bytea PRIMARY KEY CHECK (length(challenge_hash) = 32),
  user_id         bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  expires_at      timestamptz NOT NULL,
  attempts        integer NOT NULL DEFAULT 0,
  device          text NOT NULL CHECK (length(device) <= 100),
  address         text CHECK (length(address) <= 64),
  used_at         timestamptz
);

CREATE INDEX login_challenges_user_idx ON login_challenges (user_id);
