-- Filters of GET /api/Dac beyond brand (issue 18): `type` and the search `q`.

-- Pages of one type walk this index in id order, by page or by cursor.
CREATE INDEX catalog_entries_type_idx ON catalog_entries (type, id);

-- Totals per type and per (type, brand), kept exact like catalog_counts (001/002): brand_key ''
-- holds the type's total. Locked in key order so concurrent writers cannot deadlock.
CREATE TABLE catalog_type_counts (
  type      text NOT NULL,
  brand_key text NOT NULL,
  entries   bigint NOT NULL,
  PRIMARY KEY (type, brand_key)
);

CREATE FUNCTION catalog_type_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO catalog_type_counts (type, brand_key, entries)
      SELECT type, key, sum(delta) FROM (
        SELECT type, lower(brand) AS key, 1 AS delta FROM new_rows
        UNION ALL SELECT type, '', 1 FROM new_rows
      ) changes GROUP BY type, key ORDER BY type, key
      ON CONFLICT (type, brand_key) DO UPDATE SET entries = catalog_type_counts.entries + EXCLUDED.entries;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO catalog_type_counts (type, brand_key, entries)
      SELECT type, key, sum(delta) FROM (
        SELECT type, lower(brand) AS key, -1 AS delta FROM old_rows
        UNION ALL SELECT type, '', -1 FROM old_rows
      ) changes GROUP BY type, key ORDER BY type, key
      ON CONFLICT (type, brand_key) DO UPDATE SET entries = catalog_type_counts.entries + EXCLUDED.entries;
  ELSE
    INSERT INTO catalog_type_counts (type, brand_key, entries)
      SELECT type, key, sum(delta) FROM (
        SELECT type, lower(brand) AS key, 1 AS delta FROM new_rows
        UNION ALL SELECT type, '', 1 FROM new_rows
        UNION ALL SELECT type, lower(brand), -1 FROM old_rows
        UNION ALL SELECT type, '', -1 FROM old_rows
      ) changes GROUP BY type, key HAVING sum(delta) <> 0 ORDER BY type, key
      ON CONFLICT (type, brand_key) DO UPDATE SET entries = catalog_type_counts.entries + EXCLUDED.entries;
  END IF;
  RETURN NULL;
END;
$$;

CREATE FUNCTION catalog_type_counts_reset() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM catalog_type_counts;
  RETURN NULL;
END;
$$;

CREATE TRIGGER catalog_type_counts_insert AFTER INSERT ON catalog_entries
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION catalog_type_counts_apply();
CREATE TRIGGER catalog_type_counts_update AFTER UPDATE ON catalog_entries
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION catalog_type_counts_apply();
CREATE TRIGGER catalog_type_counts_delete AFTER DELETE ON catalog_entries
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION catalog_type_counts_apply();
CREATE TRIGGER catalog_type_counts_truncate AFTER TRUNCATE ON catalog_entries
  FOR EACH STATEMENT EXECUTE FUNCTION catalog_type_counts_reset();

-- Nothing can write between the count and the commit: the triggers above took a lock on the table.
LOCK TABLE catalog_entries IN SHARE ROW EXCLUSIVE MODE;
INSERT INTO catalog_type_counts (type, brand_key, entries)
  SELECT type, lower(brand), count(*) FROM catalog_entries GROUP BY type, lower(brand)
  UNION ALL SELECT type, '', count(*) FROM catalog_entries GROUP BY type;

-- `q` matches a substring of lower(brand || ' ' || model). A trigram index serves it where the
-- server has pg_trgm (PostgreSQL with contrib, as on this machine and in the images). Where the
-- extension cannot be created (PGlite, which `npm start` uses, or a role without the right to
-- create it), the search still works by reading the table in id order; an operator can run
-- `CREATE EXTENSION pg_trgm` and the index statement below later.
DO $$
BEGIN
  BEGIN
    CREATE EXTENSION IF NOT EXISTS pg_trgm;
  EXCEPTION WHEN OTHERS THEN
    RAISE NOTICE 'pg_trgm is not available (%): catalog search runs without a trigram index', SQLERRM;
  END;
  IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm') THEN
    EXECUTE 'CREATE INDEX catalog_entries_search_idx ON catalog_entries USING gin (lower(brand || '' '' || model) gin_trgm_ops)';
  END IF;
END;
$$;
