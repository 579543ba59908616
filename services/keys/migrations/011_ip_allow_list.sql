-- Per-key IP allow-lists (issue 31.3): CIDR ranges the key may be used from, validated by the API;
-- NULL: any address. Written through to the gateway's key record, which checks it on every request.
ALTER TABLE api_keys ADD COLUMN ip_allow_list text[];
