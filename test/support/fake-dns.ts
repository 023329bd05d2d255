import type { DnsResolver, ResolvedAddress } from '@app/webhooks';

/**
 * Stands in for the OS resolver, which tests cannot make answer for a name of their choosing;
 * each test sets what a name resolves to, and can change it between two lookups (DNS rebinding).
 */
export class FakeDns implements DnsResolver {
  private readonly records = new Map<string, ResolvedAddress[]>();
  readonly lookups: string[] = [];

  set(hostname: string, ...addresses: string[]): void {
    this.records.set(
      hostname,
      addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
    );
  }

  async resolve(hostname: string): Promise<ResolvedAddress[]> {
    this.lookups.push(hostname);
    const found = this.records.get(hostname);
    if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return found;
  }
}
