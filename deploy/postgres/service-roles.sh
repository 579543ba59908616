#!/bin/sh
# One PostgreSQL role per service, owning that service's database and nothing else, so a service
# (or whoever takes it over) cannot read or change another service's data, and none of them is a
# superuser. The postgres image runs this once, when it initialises an empty data directory
# (mounted at /docker-entrypoint-initdb.d by docker-compose.yml); it is safe to run again
# (docker compose exec postgres sh /docker-entrypoint-initdb.d/10-service-roles.sh) to set the
# passwords anew. For a data directory made before this script existed: README, "Deploy".
set -eu
# Role and database names: <prefix><service>, as DATABASE_URL names them in docker-compose.yml.
prefix="${SERVICE_DATABASE_PREFIX:-acs_}"

for service in keys identity catalog device billing webhooks; do
  variable="$(echo "$service" | tr '[:lower:]' '[:upper:]')_DB_PASSWORD"
  password="$(printenv "$variable" || true)"
  if [ -z "$password" ]; then
    echo "service-roles.sh: $variable is not set" >&2
    exit 1
  fi
  # psql variables (:"name", :'password') quote the identifier and the literal.
  psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname postgres \
    -v name="$prefix$service" -v password="$password" <<'SQL'
SELECT format('CREATE ROLE %I LOGIN', :'name') WHERE NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = :'name') \gexec
ALTER ROLE :"name" WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD :'password';
SELECT format('CREATE DATABASE %I OWNER %I', :'name', :'name') WHERE NOT EXISTS (SELECT 1 FROM pg_database WHERE datname = :'name') \gexec
REVOKE ALL ON DATABASE :"name" FROM PUBLIC;
GRANT CONNECT, TEMPORARY ON DATABASE :"name" TO :"name";
SQL
done
