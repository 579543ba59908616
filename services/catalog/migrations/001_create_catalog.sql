-- The audio catalog: DACs, amplifiers, speakers. Type-specific specifications live in `specs`
-- (validated by the zod schema in @acs/contracts before every write).
CREATE TABLE catalog_entries (
  id           integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  type         text NOT NULL CHECK (type IN ('dac', 'amplifier', 'speaker')),
  brand        text NOT NULL,
  model        text NOT NULL,
  price        numeric(12, 2) NOT NULL CHECK (price >= 0),
  currency     char(3) NOT NULL DEFAULT 'USD',
  release_year smallint NOT NULL,
  specs        jsonb NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now()
);

-- One entry per product: imports upsert on this.
CREATE UNIQUE INDEX catalog_entries_product_idx ON catalog_entries (type, lower(brand), lower(model));

-- The brand filter walks this index in id order: a page costs the same at a million rows.
CREATE INDEX catalog_entries_brand_idx ON catalog_entries (lower(brand), id);

-- count(*) over a million rows costs tens of milliseconds on every page; these counters are
-- kept exact by statement-level triggers instead. brand_key '' holds the total.
CREATE TABLE catalog_counts (
  brand_key text PRIMARY KEY,
  entries   bigint NOT NULL
);

CREATE FUNCTION catalog_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO catalog_counts (brand_key, entries)
      SELECT key, sum(delta) FROM (
        SELECT lower(brand) AS key, 1 AS delta FROM new_rows
        UNION ALL SELECT '', 1 FROM new_rows
      ) changes GROUP BY key
      ON CONFLICT (brand_key) DO UPDATE SET entries = catalog_counts.entries + EXCLUDED.entries;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO catalog_counts (brand_key, entries)
      SELECT key, sum(delta) FROM (
        SELECT lower(brand) AS key, -1 AS delta FROM old_rows
        UNION ALL SELECT '', -1 FROM old_rows
      ) changes GROUP BY key
      ON CONFLICT (brand_key) DO UPDATE SET entries = catalog_counts.entries + EXCLUDED.entries;
  ELSE
    INSERT INTO catalog_counts (brand_key, entries)
      SELECT key, sum(delta) FROM (
        SELECT lower(brand) AS key, 1 AS delta FROM new_rows
        UNION ALL SELECT lower(brand), -1 FROM old_rows
      ) changes GROUP BY key HAVING sum(delta) <> 0
      ON CONFLICT (brand_key) DO UPDATE SET entries = catalog_counts.entries + EXCLUDED.entries;
  END IF;
  RETURN NULL;
END;
$$;

CREATE TRIGGER catalog_counts_insert AFTER INSERT ON catalog_entries
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION catalog_counts_apply();
CREATE TRIGGER catalog_counts_update AFTER UPDATE ON catalog_entries
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION catalog_counts_apply();
CREATE TRIGGER catalog_counts_delete AFTER DELETE ON catalog_entries
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION catalog_counts_apply();

-- Remembers that the bundled seed was loaded, so deleting products doesn't bring them back.
CREATE TABLE catalog_meta (
  name  text PRIMARY KEY,
  value text NOT NULL
);
