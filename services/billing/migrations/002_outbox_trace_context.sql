-- The trace context of the request that wrote the event (the W3C propagation carrier:
-- {"traceparent": "...", "tracestate": "..."}), so the relay publishes the event as part of that
-- request's trace even though it runs later. NULL when tracing was off, and on rows written before
-- this migration: those are published as the start of a trace of their own.
ALTER TABLE outbox ADD COLUMN trace_context jsonb;
