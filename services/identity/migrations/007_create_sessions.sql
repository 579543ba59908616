-- Sessions (issue 32): every sign-in opens one; its token names it with the `sid` claim. The id is
-- 12 base64url characters (72 random bits): unguessable, and short because the ids of ended sessions
-- whose tokens are still unexpired ride in the user's authorization record (users.ended_sessions),
-- which the gateway reads on every user request anyway. last_seen_at moves at most every few minutes.
CREATE TABLE sessions (
  id           text PRIMARY KEY CHECK (id ~ '^[A-Za-z0-9_-]{12}$'),
  user_id      bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  device       text NOT NULL CHECK (length(device) <= 100),
  address      text CHECK (length(address) <= 64),
  created_at   timestamptz NOT NULL DEFAULT now(),
  last_seen_at timestamptz NOT NULL DEFAULT now(),
  expires_at   timestamptz NOT NULL,
  ended_at     timestamptz
);

CREATE INDEX sessions_user_idx ON sessions (user_id, created_at DESC);

-- The projection the authorization record carries: ids of ended sessions whose tokens have not expired.
ALTER TABLE users ADD COLUMN ended_sessions text[] NOT NULL DEFAULT '{}';
