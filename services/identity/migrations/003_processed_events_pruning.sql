-- processed_events is pruned by age (consumers/processed-events-pruner.ts); this index finds the
-- old rows without reading the whole table.
CREATE INDEX processed_events_processed_at_idx ON processed_events (processed_at);
