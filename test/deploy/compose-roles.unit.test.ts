import { describe, expect, it } from '@jest/globals';
import { composeEnv, composeVariables, interpolate, loadCompose } from './compose-file.js';
import { SECRET_FIXTURES } from './env-check.js';

const compose = loadCompose();
const variables = composeVariables();

/** Issue 14.13: no service connects to PostgreSQL as the superuser, nor as another service's role. */
describe('docker-compose.yml database roles', () => {
  const withDatabase = Object.entries(compose.services).flatMap(([name, service]) => {
    const url = composeEnv(service, variables).values.DATABASE_URL;
    if (url === undefined || name === 'postgres') return [];
    return [{ name, url: new URL(url), raw: String((service.environment as Record<string, unknown>).DATABASE_URL) }];
  });
  const superuser = interpolate(
    String((compose.services.postgres!.environment as Record<string, unknown>).POSTGRES_USER),
    (n) => SECRET_FIXTURES[n],
  );

  it('each service with a database has its own role and password, never the superuser', () => {
    expect(withDatabase.map((s) => s.name).sort()).toEqual(['billing', 'catalog', 'device', 'identity', 'keys', 'webhooks']);
    for (const { name, url, raw } of withDatabase) {
      expect(`${name}: ${url.username}@${url.pathname}`).toBe(`${name}: acs_${name}@/acs_${name}`);
      expect(url.username).not.toBe(superuser);
      expect(raw).toContain(`\${${name.toUpperCase()}_DB_PASSWORD}`);
      expect(raw).not.toContain('POSTGRES_PASSWORD');
    }
  });

  it('PostgreSQL gets every role password and the script that makes the roles', () => {
    const env = compose.services.postgres!.environment as Record<string, unknown>;
    for (const { name } of withDatabase) expect(env[`${name.toUpperCase()}_DB_PASSWORD`]).toBeDefined();
    expect((compose.services.postgres as { volumes?: string[] }).volumes).toContain(
      './deploy/postgres/service-roles.sh:/docker-entrypoint-initdb.d/10-service-roles.sh:ro',
    );
  });
});
