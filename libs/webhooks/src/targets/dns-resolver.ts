import { lookup } from 'node:dns/promises';
import { Injectable } from '@nestjs/common';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Injection token of the resolver; tests replace the OS resolver to make a name resolve where they need. */
export const WEBHOOK_DNS_RESOLVER = Symbol('WEBHOOK_DNS_RESOLVER');

export interface DnsResolver {
  /** Every A and AAAA address of the host, as the OS resolver gives them. */
  resolve(hostname: string): Promise<ResolvedAddress[]>;
}

@Injectable()
export class SystemDnsResolver implements DnsResolver {
  async resolve(hostname: string): Promise<ResolvedAddress[]> {
    const found = await lookup(hostname, { all: true, verbatim: true });
    return found.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
  }
}
