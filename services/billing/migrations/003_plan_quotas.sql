-- Plan quotas (issue 29): requests a subscriber's keys together may make per UTC calendar month and
-- per UTC day; NULL: no cap. The operator changes them with `npm run billing -- plans set-quota`,
-- which also writes a plan.quota_changed event to the outbox so identity rewrites the users' records.
ALTER TABLE plans
  ADD COLUMN quota_per_month bigint CHECK (quota_per_month > 0),
  ADD COLUMN quota_per_day   bigint CHECK (quota_per_day > 0);

UPDATE plans SET quota_per_month = 10000, quota_per_day = 1000 WHERE id = 'free';
UPDATE plans SET quota_per_month = 1000000 WHERE id IN ('monthly', 'yearly');
UPDATE plans SET quota_per_month = 2000000 WHERE id = 'lifetime';

-- identity's migration 005_plan_quotas.sql starts from these same values; later changes reach it
-- as plan.quota_changed events (set-quota writes them to the outbox, user_id 0: they have no user).
