-- The catalog version: one number that grows whenever a statement changes catalog_entries
-- (imports, the seed, an operator's SQL), in the same transaction as the change. ETags are built
-- from it (plus the query), so a conditional GET is answered from this one-row table without
-- reading catalog_entries, and a changed catalog never answers 304 for an old ETag.
CREATE TABLE catalog_version (
  only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
  version  bigint NOT NULL
);
INSERT INTO catalog_version (only_row, version) VALUES (true, 1);

-- Statements that touch no row (an import whose rows all exist unchanged still updates them; an
-- empty DELETE does not) leave the version alone, so the ETag only moves when rows moved.
CREATE FUNCTION catalog_version_bump() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  changed boolean;
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
    UPDATE catalog_version SET version = version + 1;
  END IF;
  RETURN NULL;
END;
$$;

CREATE TRIGGER catalog_version_insert AFTER INSERT ON catalog_entries
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION catalog_version_bump();
CREATE TRIGGER catalog_version_update AFTER UPDATE ON catalog_entries
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION catalog_version_bump();
CREATE TRIGGER catalog_version_delete AFTER DELETE ON catalog_entries
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION catalog_version_bump();
CREATE TRIGGER catalog_version_truncate AFTER TRUNCATE ON catalog_entries
  FOR EACH STATEMENT EXECUTE FUNCTION catalog_version_bump();
