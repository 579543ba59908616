-- Devices registered to users. owner_user_id is the identity service's user id (no foreign key:
-- that table lives in another service's database). A serial belongs to one owner at a time.
CREATE TABLE devices (
  id               integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  owner_user_id    bigint NOT NULL,
  serial_number    text NOT NULL UNIQUE,
  name             text NOT NULL,
  catalog_entry_id integer,
  firmware_version text,
  registered_at    timestamptz NOT NULL DEFAULT now()
);

-- GET /api/Devices: one user's devices, newest first (id breaks ties within one timestamp).
CREATE INDEX devices_owner_registered_idx ON devices (owner_user_id, registered_at DESC, id DESC);
