import { checkAddress, parseIPv4, parseIPv6 } from './ssrf-guard';

const refused = (address: string) => expect(checkAddress(address)).toMatchObject({ allowed: false });
const allowed = (address: string) => expect(checkAddress(address)).toEqual({ allowed: true });

describe('SSRF guard: addresses a webhook may never reach', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'link-local (cloud metadata)'],
    ['169.254.0.1', 'link-local'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['100.127.255.255', 'carrier-grade NAT'],
    ['100.100.100.200', 'carrier-grade NAT'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['198.18.0.1', 'benchmarking'],
    ['192.0.0.170', 'IETF'],
    ['168.63.129.16', 'cloud metadata'],
  ])('refuses IPv4 %s (%s)', (address, reason) => {
    expect(checkAddress(address)).toEqual({ allowed: false, reason: expect.stringContaining(reason) });
  });

  it.each([
    ['2130706433', 'decimal 127.0.0.1'],
    ['0x7f000001', 'hex 127.0.0.1'],
    ['0X7F.0.0.1', 'hex first part'],
    ['0177.0.0.1', 'octal 127.0.0.1'],
    ['0177.0.0.01', 'octal parts'],
    ['127.1', 'short form'],
    ['127.0.1', 'three-part short form'],
    ['10.1', 'short private'],
    ['0', 'a bare zero'],
    ['3232235777', 'decimal 192.168.1.1'],
    ['0xa9fea9fe', 'hex metadata 169.254.169.254'],
    ['025177524776', 'octal metadata 169.254.169.254'],
  ])('refuses the spelling %s (%s)', (address) => refused(address));

  it('parses the odd IPv4 spellings to the right address', () => {
    const dotted = parseIPv4('127.0.0.1');
    expect(parseIPv4('2130706433')).toBe(dotted);
    expect(parseIPv4('0x7f000001')).toBe(dotted);
    expect(parseIPv4('0177.0.0.1')).toBe(dotted);
    expect(parseIPv4('127.1')).toBe(dotted);
    expect(parseIPv4('127.0.1')).toBe(dotted);
    expect(parseIPv4('256.0.0.1')).toBeNull();
    expect(parseIPv4('1.2.3.4.5')).toBeNull();
    expect(parseIPv4('08.0.0.1')).toBeNull();
    expect(parseIPv4('4294967296')).toBeNull();
    expect(parseIPv4('example.com')).toBeNull();
  });

  it.each([
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['[::1]', 'loopback'],
    ['::ffff:127.0.0.1', 'IPv4-mapped'],
    ['::ffff:7f00:1', 'IPv4-mapped'],
    ['::ffff:8.8.8.8', 'IPv4-mapped'],
    ['::ffff:169.254.169.254', 'IPv4-mapped'],
    ['::127.0.0.1', 'IPv4-compatible'],
    ['fc00::1', 'unique local'],
    ['fd00:ec2::254', 'unique local'],
    ['fdff:ffff::1', 'unique local'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['febf::1', 'link-local'],
    ['fec0::1', 'site-local'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'documentation'],
    ['64:ff9b::7f00:1', 'NAT64 of a loopback'],
    ['64:ff9b::10.0.0.1', 'NAT64 of a private'],
    ['2002:7f00:1::', '6to4 of a loopback'],
    ['2001::1', 'Teredo'],
    ['100::1', 'discard-only'],
  ])('refuses IPv6 %s (%s)', (address, reason) => {
    expect(checkAddress(address)).toEqual({ allowed: false, reason: expect.stringContaining(reason) });
  });

  it('expands IPv6 forms', () => {
    expect(parseIPv6('::1')).toEqual([0, 0, 0, 0, 0, 0, 0, 1]);
    expect(parseIPv6('::ffff:127.0.0.1')).toEqual([0, 0, 0, 0, 0, 0xffff, 0x7f00, 1]);
    expect(parseIPv6('2606:4700::6810:84e5')).toEqual([0x2606, 0x4700, 0, 0, 0, 0, 0x6810, 0x84e5]);
    expect(parseIPv6('1::')).toEqual([1, 0, 0, 0, 0, 0, 0, 0]);
    expect(parseIPv6('127.0.0.1')).toBeNull();
    expect(parseIPv6('not:an:address')).toBeNull();
  });

  it.each(['93.184.215.14', '8.8.8.8', '1.1.1.1', '172.15.255.255', '172.32.0.1', '100.63.255.255', '100.128.0.1', '169.253.1.1', '11.0.0.1'])(
    'allows the public IPv4 %s',
    (address) => allowed(address),
  );

  it.each(['2606:4700:4700::1111', '2001:4860:4860::8888', '2a00:1450:4001:80b::200e', '64:ff9b::808:808', '2002:808:808::1'])(
    'allows the public IPv6 %s',
    (address) => allowed(address),
  );

  it('refuses what is not an address at all, so a host name can never slip through unresolved', () => {
    refused('example.com');
    refused('');
    refused('localhost');
  });
});
