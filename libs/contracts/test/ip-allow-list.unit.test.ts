import { describe, expect, it } from '@jest/globals';
import { apiKeyChangeRequestSchema, apiKeyCreateRequestSchema, compileIpAllowList, ipAllowListSchema, parseCidr } from '@acs/contracts';

describe('parseCidr: strict IPv4 and IPv6 ranges', () => {
  it('accepts ranges and bare addresses', () => {
    for (const good of [
      '203.0.113.0/24',
      '10.0.0.0/8',
      '0.0.0.0/0',
      '198.51.100.7',
      '2001:db8::/32',
      '::/0',
      '::1',
      'fe80::1/128',
      '::ffff:10.0.0.0/104',
    ])
      expect(typeof parseCidr(good)).toBe('object');
  });

  it('refuses anything else, saying why', () => {
    for (const bad of [
      '',
      'localhost',
      '10.0.0.0/33',
      '2001:db8::/129',
      '10.0.0.0/',
      '10.0.0.0/08',
      '10.0.0.0/-1',
      '10.0.0.0/8/8',
      ' 10.0.0.0/8',
      '10.0.0.0/8 ',
      '010.0.0.1',
      '10.0.0',
      '256.0.0.1',
      '10.0.0.0/a',
      'fe80::1%eth0',
      '2001:db8:::/32',
      '1.2.3.4.5',
    ])
      expect(typeof parseCidr(bad)).toBe('string');
  });
});

describe('compileIpAllowList: matching', () => {
  it('matches IPv4 ranges and hosts, and nothing outside them', () => {
    const list = compileIpAllowList(['203.0.113.0/24', '198.51.100.7', '10.0.0.0/8']);
    for (const inside of ['203.0.113.0', '203.0.113.255', '198.51.100.7', '10.255.0.1']) expect(list.allows(inside)).toBe(true);
    for (const outside of ['203.0.114.0', '198.51.100.8', '11.0.0.0', '2001:db8::1', 'junk', '']) expect(list.allows(outside)).toBe(false);
  });

  it('masks a range written with host bits (192.168.1.5/24 is the /24)', () => {
    expect(compileIpAllowList(['192.168.1.5/24']).allows('192.168.1.200')).toBe(true);
  });

  it('matches IPv6 ranges at every prefix boundary', () => {
    const list = compileIpAllowList(['2001:db8::/32', 'fd00:1:2:3::/64', '::1']);
    expect(list.allows('2001:db8::1')).toBe(true);
    expect(list.allows('2001:db8:ffff:ffff:ffff:ffff:ffff:ffff')).toBe(true);
    expect(list.allows('2001:db9::')).toBe(false);
    expect(list.allows('fd00:1:2:3:abcd::1')).toBe(true);
    expect(list.allows('fd00:1:2:4::1')).toBe(false);
    expect(list.allows('::1')).toBe(true);
    expect(list.allows('::2')).toBe(false);
    expect(list.allows('127.0.0.1')).toBe(false);
    expect(compileIpAllowList(['2001:db8:1234:5678:9abc:1f00::/88']).allows('2001:db8:1234:5678:9abc:1fff::')).toBe(true);
    expect(compileIpAllowList(['2001:db8:1234:5678:9abc:1f00::/88']).allows('2001:db8:1234:5678:9abc:2000::')).toBe(false);
  });

  it('treats v4-mapped IPv6 as IPv4, both in the list and as the client', () => {
    const v4 = compileIpAllowList(['10.0.0.0/8']);
    expect(v4.allows('::ffff:10.1.2.3')).toBe(true);
    expect(v4.allows('::ffff:a01:203')).toBe(true);
    expect(v4.allows('::ffff:11.1.2.3')).toBe(false);
    const mapped = compileIpAllowList(['::ffff:10.0.0.0/104']);
    expect(mapped.allows('10.9.9.9')).toBe(true);
    expect(mapped.allows('11.9.9.9')).toBe(false);
  });

  it('0.0.0.0/0 and ::/0 open their whole family only', () => {
    expect(compileIpAllowList(['0.0.0.0/0']).allows('8.8.8.8')).toBe(true);
    expect(compileIpAllowList(['0.0.0.0/0']).allows('2001:db8::1')).toBe(false);
    expect(compileIpAllowList(['::/0']).allows('2001:db8::1')).toBe(true);
  });
});

describe('ipAllowList in the request bodies', () => {
  it('is validated strictly, naming the field, with a cap on entries', () => {
    const bad = apiKeyCreateRequestSchema.safeParse({ name: 'n', scopes: 'read:devices', ipAllowList: ['10.0.0.0/8', 'nope'] });
    expect(bad.success).toBe(false);
    expect(bad.error!.issues[0]!.path).toEqual(['ipAllowList', 1]);
    expect(bad.error!.issues[0]!.message).toMatch(/"nope"/);
    expect(ipAllowListSchema.safeParse([]).success).toBe(false);
    expect(ipAllowListSchema.safeParse(Array.from({ length: 101 }, (_, i) => `10.0.${i}.0/24`)).success).toBe(false);
    expect(ipAllowListSchema.safeParse(Array.from({ length: 100 }, (_, i) => `10.0.${i}.0/24`)).success).toBe(true);
  });

  it('null in PATCH clears it, and it alone is a change', () => {
    expect(apiKeyChangeRequestSchema.parse({ ipAllowList: null })).toEqual({ ipAllowList: null });
    expect(apiKeyChangeRequestSchema.parse({ ipAllowList: ['::1'] })).toEqual({ ipAllowList: ['::1'] });
  });
});
