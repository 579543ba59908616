import { describe, expect, it } from '@jest/globals';
import { createClientAddressResolver } from '@acs/http';

describe('client address behind proxies', () => {
  const resolve = createClientAddressResolver(['10.0.0.0/8', '192.168.1.7', 'fd00::/8']);

  it('is the connection address when the peer is not a trusted proxy, whatever X-Forwarded-For says', () => {
    expect(resolve('203.0.113.9', '198.51.100.1')).toBe('203.0.113.9');
    expect(resolve('::ffff:203.0.113.9', undefined)).toBe('203.0.113.9');
  });

  it('walks X-Forwarded-For from the right past trusted proxies only, so a client cannot choose its address', () => {
    expect(resolve('10.1.2.3', '198.51.100.1')).toBe('198.51.100.1');
    // The client wrote "1.1.1.1" itself; the Ingress appended the real address.
    expect(resolve('10.1.2.3', '1.1.1.1, 198.51.100.1')).toBe('198.51.100.1');
    // Two trusted hops (load balancer then Ingress) in front of us.
    expect(resolve('10.1.2.3', '198.51.100.1, 192.168.1.7')).toBe('198.51.100.1');
    expect(resolve('fd00::5', ['2001:db8::1', 'fd00::9'])).toBe('2001:db8::1');
  });

  it('stops at a malformed entry and keeps the last address it could vouch for', () => {
    expect(resolve('10.1.2.3', 'unknown, 192.168.1.7')).toBe('192.168.1.7');
    expect(resolve('10.1.2.3', 'garbage')).toBe('10.1.2.3');
  });

  it("trusts a caller vouched for by other means (the service's own web application) like a proxy", () => {
    expect(createClientAddressResolver([])('127.0.0.1', '198.51.100.4', true)).toBe('198.51.100.4');
    expect(createClientAddressResolver([])('127.0.0.1', '198.51.100.4')).toBe('127.0.0.1');
  });

  it('refuses a trusted entry that is not an address or range', () => {
    expect(() => createClientAddressResolver(['10.0.0.0/abc'])).toThrow(/not an IP address or CIDR range/);
    expect(() => createClientAddressResolver(['example.com'])).toThrow(/not an IP address or CIDR range/);
  });
});
