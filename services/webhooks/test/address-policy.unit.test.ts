import { describe, expect, it } from '@jest/globals';
import { isBlockedAddress } from '../src/domain/address-policy.js';

describe('isBlockedAddress', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback range'],
    ['10.1.2.3', 'private 10/8'],
    ['172.16.0.1', 'private 172.16/12'],
    ['172.31.255.255', 'private 172.16/12 end'],
    ['192.168.1.1', 'private 192.168/16'],
    ['169.254.169.254', 'cloud metadata'],
    ['169.254.1.1', 'link-local'],
    ['100.64.0.1', 'CGNAT'],
    ['100.127.255.255', 'CGNAT end'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'this network'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast (SSDP)'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    ['192.0.2.1', 'documentation'],
    ['198.18.0.1', 'benchmarking'],
    ['::1', 'IPv6 loopback'],
    ['::', 'IPv6 unspecified'],
    ['fe80::1', 'IPv6 link-local'],
    ['fe80::1%eth0', 'IPv6 link-local with a zone'],
    ['fc00::1', 'unique local'],
    ['fd00:ec2::254', 'AWS metadata over IPv6'],
    ['ff02::1', 'IPv6 multicast'],
    ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
    ['::ffff:7f00:1', 'IPv4-mapped loopback, hex form'],
    ['::ffff:169.254.169.254', 'IPv4-mapped metadata'],
    ['::ffff:10.0.0.1', 'IPv4-mapped private'],
    ['::127.0.0.1', 'IPv4-compatible loopback'],
    ['64:ff9b::a9fe:a9fe', 'NAT64 of the metadata address'],
    ['2002:7f00:1::', '6to4 of loopback'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo'],
    ['2001:db8::1', 'IPv6 documentation'],
    ['[::1]', 'bracketed IPv6 loopback'],
    ['localhost', 'not an IP address'],
    ['', 'empty'],
    ['1.2.3', 'not a whole IPv4 address'],
  ])('blocks %s (%s)', (address) => {
    expect(isBlockedAddress(address)).toBe(true);
  });

  it.each([
    ['93.184.216.34', 'public IPv4'],
    ['8.8.8.8', 'public IPv4'],
    ['172.32.0.1', 'just past 172.16/12'],
    ['100.128.0.1', 'just past CGNAT'],
    ['169.255.0.1', 'just past link-local'],
    ['2606:4700:4700::1111', 'public IPv6'],
    ['::ffff:8.8.8.8', 'IPv4-mapped public'],
    ['64:ff9b::808:808', 'NAT64 of a public address'],
    ['2002:808:808::1', '6to4 of a public address'],
  ])('allows %s (%s)', (address) => {
    expect(isBlockedAddress(address)).toBe(false);
  });
});
