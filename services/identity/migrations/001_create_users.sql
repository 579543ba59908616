-- User accounts. The e-mail is stored as given and unique regardless of case (the index on
-- lower(email) also serves the login lookup). Only a bcrypt hash of the password is kept.
-- account_role: 0 Free, 1 Subscriber, 2 Admin, 3 SuperAdmin. The effective role is computed from
-- it, the trial end and the subscription end (fed by billing); plan_type: 0 Free, 1 Monthly,
-- 2 Yearly, 3 Lifetime. `version` orders the authorization record's cache writes.
-- The id is GENERATED ALWAYS: no insert can choose it (mass assignment has nothing to reach).
CREATE TABLE users (
  id                   bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  email                text NOT NULL CHECK (length(email) BETWEEN 3 AND 254),
  password_hash        text NOT NULL,
  first_name           text NOT NULL CHECK (length(first_name) BETWEEN 1 AND 100),
  last_name            text NOT NULL CHECK (length(last_name) BETWEEN 1 AND 100),
  account_role         smallint NOT NULL DEFAULT 0 CHECK (account_role BETWEEN 0 AND 3),
  trial_ends_at        timestamptz,
  subscription_ends_at timestamptz,
  plan_type            smallint NOT NULL DEFAULT 0 CHECK (plan_type BETWEEN 0 AND 3),
  version              bigint NOT NULL DEFAULT 1,
  created_at           timestamptz NOT NULL DEFAULT now(),
  updated_at           timestamptz NOT NULL DEFAULT now()
);

CREATE UNIQUE INDEX users_email_lower_key ON users (lower(email));
