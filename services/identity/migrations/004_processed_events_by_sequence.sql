-- Events of a user are ordered by their sequence only (billing's outbox row id), never by
-- occurred_at: billing pods' clocks may differ (issue 14, item 12). The stale check and the pruner
-- look up a user's applied events by sequence, so the index follows.
DROP INDEX IF EXISTS processed_events_user_idx;
CREATE INDEX processed_events_user_sequence_idx ON processed_events (user_id, sequence DESC);
