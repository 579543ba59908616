-- A key's own rate limits (issue 16): a JSON array of {limit, windowSeconds}; NULL means the gateway's
-- default for the key's environment. Validated by the service (libs/contracts rate-limits.ts) before it is stored.
ALTER TABLE api_keys ADD COLUMN rate_limits jsonb;
