-- Read-your-writes across catalog instances (issue 18): every bump of the catalog version is also
-- announced with NOTIFY on the channel catalog_version, payload the new version. PostgreSQL
-- delivers it when the writing transaction commits (never for a rollback), to every instance
-- that LISTENs on the primary, so each knows the newest committed version within milliseconds and
-- reads the primary while its replica is behind that (src/data-access/catalog-reads.ts). Imports,
-- the seed and operators' SQL all pass through this trigger function, so all of them are heard.
CREATE OR REPLACE FUNCTION catalog_version_bump() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  changed boolean;
  bumped bigint;
BEGIN
  -- Separate branches: each transition table exists only for its own operation.
  IF TG_OP = 'TRUNCATE' THEN
    changed := true;
  ELSIF TG_OP = 'DELETE' THEN
    changed := EXISTS (SELECT 1 FROM old_rows);
  ELSE
    changed := EXISTS (SELECT 1 FROM new_rows);
  END IF;
  IF changed THEN
    UPDATE catalog_version SET version = version + 1 RETURNING version INTO bumped;
    PERFORM pg_notify('catalog_version', bumped::text);
  END IF;
  RETURN NULL;
END;
$$;
