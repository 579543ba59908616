-- Plan quotas (issue 29). identity copies the user's current quota into the authorization record
-- the gateway reads. plan_quotas holds billing's plans' quotas (from subscription and
-- plan.quota_changed events; `sequence` is billing's outbox position, so a late event never
-- replaces a newer quota) and identity's own rows 'trial' and 'none' (TRIAL_QUOTA and
-- NO_SUBSCRIPTION_QUOTA, written at every start). NULL: no cap for that period.
CREATE TABLE plan_quotas (
  plan_id    text PRIMARY KEY,
  per_month  bigint CHECK (per_month > 0),
  per_day    bigint CHECK (per_day > 0),
  sequence   bigint NOT NULL DEFAULT 0,
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- The defaults of billing's 003_plan_quotas.sql, at sequence 0: billing's first events replace them.
INSERT INTO plan_quotas (plan_id, per_month, per_day) VALUES
  ('free', 10000, 1000), ('monthly', 1000000, NULL), ('yearly', 1000000, NULL), ('lifetime', 2000000, NULL);

-- The plan of the user's subscription (the event's planId). Billing's plans have one plan_type each,
-- so the rows written before this column get theirs from plan_type.
ALTER TABLE users ADD COLUMN plan_id text;
UPDATE users SET plan_id = CASE plan_type WHEN 1 THEN 'monthly' WHEN 2 THEN 'yearly' WHEN 3 THEN 'lifetime' END WHERE plan_type > 0;

-- A plan's quota change rewrites the records of its users, in id order, in batches.
CREATE INDEX users_plan_id_idx ON users (plan_id, id) WHERE plan_id IS NOT NULL;
