import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import {
  ConfigError,
  booleanFlag,
  listenerFields,
  parseConfig,
  port,
  portOrOff,
  postgresUrl,
  secret,
  serviceFields,
  wholeNumber,
} from '@acs/config';

const schema = z.object({
  PORT: port(8080),
  DATABASE_URL: postgresUrl().optional(),
  VERBOSE: booleanFlag(false),
  INTERNAL_SECRET: secret(),
});

describe('parseConfig', () => {
  it('applies defaults and coerces values', () => {
    const config = parseConfig('test', schema, { INTERNAL_SECRET: 'x'.repeat(32), VERBOSE: 'yes' });
    expect(config).toEqual({ PORT: 8080, VERBOSE: true, INTERNAL_SECRET: 'x'.repeat(32) });
  });

  it('treats empty strings as unset', () => {
    expect(parseConfig('test', schema, { PORT: '', INTERNAL_SECRET: 'y'.repeat(40) }).PORT).toBe(8080);
  });

  it('names each bad variable and what was expected', () => {
    let caught: unknown;
    try {
      parseConfig('keys', schema, { PORT: 'eighty', DATABASE_URL: 'mysql://x', INTERNAL_SECRET: 'short' });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    const error = caught as ConfigError;
    expect(error.problems.map((p) => p.variable).sort()).toEqual(['DATABASE_URL', 'INTERNAL_SECRET', 'PORT']);
    expect(error.message).toContain('keys: invalid configuration');
    expect(error.message).toMatch(/DATABASE_URL: expected a URL starting with postgres:\/\//);
    expect(error.message).toMatch(/INTERNAL_SECRET: expected at least 32 characters/);
  });

  it('reads an optional listener port: a number, 0 for a free one, or off', () => {
    const listener = z.object({ METRICS_PORT: portOrOff(9464) });
    expect(parseConfig('test', listener, {}).METRICS_PORT).toBe(9464);
    expect(parseConfig('test', listener, { METRICS_PORT: '9100' }).METRICS_PORT).toBe(9100);
    expect(parseConfig('test', listener, { METRICS_PORT: '0' }).METRICS_PORT).toBe(0);
    expect(parseConfig('test', listener, { METRICS_PORT: 'off' }).METRICS_PORT).toBeNull();
    expect(parseConfig('test', z.object({ METRICS_PORT: portOrOff('off') }), {}).METRICS_PORT).toBeNull();
    for (const bad of ['70000', 'no', '-1', '9464x']) {
      expect(() => parseConfig('test', listener, { METRICS_PORT: bad })).toThrow(/METRICS_PORT: expected a TCP port number, or off/);
    }
  });

  it('reports a missing required variable', () => {
    expect(() => parseConfig('test', schema, {})).toThrow(/INTERNAL_SECRET/);
  });
});

describe('serviceDatabaseUrl', () => {
  it('gives each service its own database on the same server', async () => {
    const { serviceDatabaseUrl } = await import('@acs/config');
    expect(serviceDatabaseUrl('postgres://postgres@127.0.0.1:5432/acs', 'keys')).toBe('postgres://postgres@127.0.0.1:5432/acs_keys');
    expect(serviceDatabaseUrl('postgres://u:p@db:5432', 'catalog')).toBe('postgres://u:p@db:5432/acs_catalog');
    expect(serviceDatabaseUrl('postgresql://db/prod?sslmode=require', 'keys')).toBe('postgresql://db/prod_keys?sslmode=require');
  });
});

describe('base fields', () => {
  const service = z.object({ ...serviceFields(8082), EXTRA: booleanFlag(true) });

  it('gives every service the same PORT, HOST, LOG_LEVEL, DATABASE_URL, DATA_DIR, DATABASE_WAIT_SECONDS and INTERNAL_SECRET, with its own port', () => {
    expect(parseConfig('catalog', service, { INTERNAL_SECRET: 's'.repeat(32) })).toEqual({
      PORT: 8082,
      HOST: '0.0.0.0',
      LOG_LEVEL: 'info',
      DATA_DIR: './.data',
      DATABASE_WAIT_SECONDS: 45,
      INTERNAL_SECRET: 's'.repeat(32),
      EXTRA: true,
    });
    expect(parseConfig('gateway', z.object(listenerFields(8080)), {})).toEqual({ PORT: 8080, HOST: '0.0.0.0', LOG_LEVEL: 'info' });
  });

  it('names each bad shared variable', () => {
    expect(() =>
      parseConfig('catalog', service, {
        PORT: 'x',
        LOG_LEVEL: 'loud',
        DATABASE_URL: 'mysql://db',
        DATABASE_WAIT_SECONDS: '-1',
        INTERNAL_SECRET: 'short',
      }),
    ).toThrow(
      /PORT: expected a TCP port number[\s\S]*LOG_LEVEL: expected a pino level[\s\S]*DATABASE_URL: expected a URL starting with postgres:\/\/[\s\S]*DATABASE_WAIT_SECONDS: expected at least 0[\s\S]*INTERNAL_SECRET: expected at least 32/,
    );
  });
});

describe('wholeNumber', () => {
  const schema = z.object({ TTL: wholeNumber(60, 3600, 300) });

  it('takes whole numbers within its bounds and names the bound that was missed', () => {
    expect(parseConfig('test', schema, {}).TTL).toBe(300);
    expect(parseConfig('test', schema, { TTL: '3600' }).TTL).toBe(3600);
    expect(() => parseConfig('test', schema, { TTL: '59' })).toThrow(/TTL: expected at least 60/);
    expect(() => parseConfig('test', schema, { TTL: '3601' })).toThrow(/TTL: expected at most 3600/);
    expect(() => parseConfig('test', schema, { TTL: '1.5' })).toThrow(/TTL: expected a whole number/);
    expect(() => parseConfig('test', schema, { TTL: 'soon' })).toThrow(/TTL: expected a whole number/);
  });
});
