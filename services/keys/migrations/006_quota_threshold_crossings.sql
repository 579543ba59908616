-- A user's count passing 80, 90 or 100 % of a quota period (issue 29), as the gateways report them in
-- their usage batches: recorded once per (user, period, period start, percent) however many gateways
-- saw it. published_at stays NULL until a publisher sends the quota.threshold.v1 event for the row.
CREATE TABLE quota_threshold_crossings (
  event_id     uuid NOT NULL UNIQUE DEFAULT gen_random_uuid(),
  user_id      bigint NOT NULL,
  period       text NOT NULL CHECK (period IN ('day', 'month')),
  period_start text NOT NULL,
  percent      smallint NOT NULL CHECK (percent IN (80, 90, 100)),
  plan         text NOT NULL,
  quota        bigint NOT NULL CHECK (quota > 0),
  occurred_at  timestamptz NOT NULL DEFAULT now(),
  published_at timestamptz,
  PRIMARY KEY (user_id, period, period_start, percent)
);

CREATE INDEX quota_threshold_crossings_unpublished_idx ON quota_threshold_crossings (occurred_at) WHERE published_at IS NULL;
