-- Three holes in the counters of 001, closed without editing 001 (applied files are checksummed):
-- 1. brand_key '' holds the total, so a product whose brand is '' was counted into the total
--    twice. No valid entry has a blank brand (the contract trims it and requires a character),
--    so the table now refuses one; should a blank brand exist, this migration stops the start
--    and names the constraint, rather than keep wrong totals.
-- 2. TRUNCATE fires no row or statement trigger of 001, so it left every counter as it was.
-- 3. Concurrent writers deadlocked: each statement locks the counter rows it touches (always
--    '' and one per brand) in whatever order GROUP BY emits them, so two inserts touching the
--    same brands could take them in opposite orders. The counters are now locked in key order.
ALTER TABLE catalog_entries ADD CONSTRAINT catalog_entries_brand_not_blank CHECK (btrim(brand) <> '');

CREATE OR REPLACE FUNCTION catalog_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO catalog_counts (brand_key, entries)
      SELECT key, sum(delta) FROM (
        SELECT lower(brand) AS key, 1 AS delta FROM new_rows
        UNION ALL SELECT '', 1 FROM new_rows
      ) changes GROUP BY key ORDER BY key
      ON CONFLICT (brand_key) DO UPDATE SET entries = catalog_counts.entries + EXCLUDED.entries;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO catalog_counts (brand_key, entries)
      SELECT key, sum(delta) FROM (
        SELECT lower(brand) AS key, -1 AS delta FROM old_rows
        UNION ALL SELECT '', -1 FROM old_rows
      ) changes GROUP BY key ORDER BY key
      ON CONFLICT (brand_key) DO UPDATE SET entries = catalog_counts.entries + EXCLUDED.entries;
  ELSE
    INSERT INTO catalog_counts (brand_key, entries)
      SELECT key, sum(delta) FROM (
        SELECT lower(brand) AS key, 1 AS delta FROM new_rows
        UNION ALL SELECT lower(brand), -1 FROM old_rows
      ) changes GROUP BY key HAVING sum(delta) <> 0 ORDER BY key
      ON CONFLICT (brand_key) DO UPDATE SET entries = catalog_counts.entries + EXCLUDED.entries;
  END IF;
  RETURN NULL;
END;
$$;

CREATE FUNCTION catalog_counts_reset() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM catalog_counts;
  RETURN NULL;
END;
$$;

CREATE TRIGGER catalog_counts_truncate AFTER TRUNCATE ON catalog_entries
  FOR EACH STATEMENT EXECUTE FUNCTION catalog_counts_reset();

-- Counters that drifted through either hole are recomputed. ALTER TABLE above holds an ACCESS
-- EXCLUSIVE lock on catalog_entries until the commit, so no write can slip in between.
DELETE FROM catalog_counts;
INSERT INTO catalog_counts (brand_key, entries)
  SELECT lower(brand), count(*) FROM catalog_entries GROUP BY lower(brand)
  UNION ALL SELECT '', count(*) FROM catalog_entries;
