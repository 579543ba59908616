import { describe, expect, it } from '@jest/globals';
import type { LookupAddress } from 'node:dns';
import { safeLookup } from '../src/delivery/safe-lookup.js';
import { urlRefusal } from '../src/domain/url-policy.js';

const resolver = (table: Record<string, string[]>) => async (host: string) => {
  const found = table[host];
  if (!found) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
  return found;
};

function lookupWith(table: Record<string, string[]>, host: string, options: { all?: boolean; family?: number } = {}) {
  return new Promise<{ err: NodeJS.ErrnoException | null; address: string | LookupAddress[] }>((resolve) =>
    safeLookup(resolver(table))(host, options, (err, address) => resolve({ err, address })),
  );
}

describe('safeLookup (connection time)', () => {
  const table = {
    'public.test': ['93.184.216.34'],
    'rebind.test': ['127.0.0.1'],
    'mixed.test': ['93.184.216.34', '10.0.0.5'],
    'v6.test': ['2606:4700::1'],
  };

  it('hands the socket a public address', async () => {
    expect(await lookupWith(table, 'public.test')).toEqual({ err: null, address: '93.184.216.34' });
    expect(await lookupWith(table, 'v6.test', { all: true })).toEqual({ err: null, address: [{ address: '2606:4700::1', family: 6 }] });
  });

  it('refuses a name that resolves to a blocked address, also when only one of its answers is', async () => {
    for (const host of ['rebind.test', 'mixed.test']) {
      const { err } = await lookupWith(table, host);
      expect(err?.code).toBe('EBLOCKEDADDRESS');
    }
  });

  it('passes a resolution failure on', async () => {
    expect((await lookupWith(table, 'nowhere.test')).err?.code).toBe('ENOTFOUND');
  });
});

describe('urlRefusal (registration)', () => {
  const strict = {
    allowPrivate: false,
    resolve: resolver({ 'hooks.example.com': ['93.184.216.34'], 'inside.example.com': ['192.168.0.10'] }),
  };
  const open = { allowPrivate: true, resolve: resolver({}) };

  it('accepts an https URL of a public host', async () => {
    expect(await urlRefusal('https://hooks.example.com/in', strict)).toBeNull();
    expect(await urlRefusal('https://93.184.216.34:8443/in', strict)).toBeNull();
  });

  it.each([
    ['http://hooks.example.com/in', 'url must be https'],
    ['ftp://hooks.example.com/', 'url must be https'],
    ['not a url', 'url is not an absolute URL'],
    ['https://user:pw@hooks.example.com/', 'url must not carry credentials'],
    ['https://127.0.0.1/', "url's address 127.0.0.1 is not public"],
    ['https://[::1]/', "url's address ::1 is not public"],
    ['https://[::ffff:169.254.169.254]/', 'is not public'],
    ['https://169.254.169.254/latest/meta-data', 'is not public'],
    ['https://inside.example.com/', 'resolves to 192.168.0.10'],
    ['https://nowhere.example.com/', 'does not resolve'],
  ])('refuses %s', async (url, reason) => {
    expect(await urlRefusal(url, strict)).toContain(reason);
  });

  it('allows http and private hosts when the deployment allows private URLs', async () => {
    expect(await urlRefusal('http://127.0.0.1:9999/hook', open)).toBeNull();
    expect(await urlRefusal('ftp://127.0.0.1/', open)).toBe('url must be https');
  });
});
