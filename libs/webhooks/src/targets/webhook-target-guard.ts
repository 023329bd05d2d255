import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@app/core';
import { DnsResolver, ResolvedAddress, WEBHOOK_DNS_RESOLVER } from './dns-resolver';
import { checkAddress, isIpLiteral, parseIPv4, formatIPv4 } from './ssrf-guard';

export const MAX_URL_LENGTH = 2048;

/** Where one delivery connects: the URL, and the one address that was checked (the connection is pinned to it). */
export interface PinnedTarget {
  url: URL;
  hostname: string;
  address: string;
  family: 4 | 6;
}

/**
 * What the merchant is told when a host's addresses are refused. What the host resolved to, or why the
 * lookup failed, goes to the log only: echoed back, it would let anyone map internal names and addresses.
 */
export const REFUSED_TARGET = 'URL is not allowed (private, loopback or unresolvable address)';

export type TargetResult = { ok: true; target: PinnedTarget } | { ok: false; reason: string };

/**
 * Decides whether a webhook URL may be called, at creation and again before every attempt. Unless
 * WEBHOOK_ALLOW_PRIVATE_TARGETS=true, only https, and every address the host resolves to must be
 * public; the caller then connects to the address checked here, so DNS rebinding between the
 * check and the connection cannot redirect the request.
 */
@Injectable()
export class WebhookTargetGuard {
  private readonly logger = new Logger(WebhookTargetGuard.name);

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(WEBHOOK_DNS_RESOLVER) private readonly resolver: DnsResolver,
  ) {}

  /** Checks the URL's form only (no DNS): returns why it is refused, or null. */
  checkForm(raw: string): string | null {
    if (raw.length > MAX_URL_LENGTH) return `must be at most ${MAX_URL_LENGTH} characters`;
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return 'must be an absolute URL';
    }
    const allowPrivate = this.config.webhookAllowPrivateTargets;
    if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:')) {
      return allowPrivate ? 'must use https or http' : 'must use https';
    }
    if (url.username || url.password) return 'must not contain credentials';
    if (!url.hostname) return 'must name a host';
    if (!allowPrivate) {
      const host = url.hostname.toLowerCase().replace(/\.$/, '');
      if (host === 'localhost' || host.endsWith('.localhost')) return 'must not point at localhost';
    }
    return null;
  }

  /**
   * What an endpoint URL must pass to be saved: the form, and unless private targets are allowed,
   * every address its host resolves to now. Returns why it is refused, or null.
   */
  async checkAtCreation(raw: string): Promise<string | null> {
    if (this.config.webhookAllowPrivateTargets) {
      const problem = this.checkForm(raw);
      return problem ? `URL ${problem}` : null;
    }
    const result = await this.resolve(raw);
    return result.ok ? null : result.reason;
  }

  /** Form check plus resolution and address check: what creation and every delivery attempt run. */
  async resolve(raw: string): Promise<TargetResult> {
    const problem = this.checkForm(raw);
    if (problem) return { ok: false, reason: `URL ${problem}` };
    const url = new URL(raw);
    const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;

    let addresses: ResolvedAddress[];
    if (isIpLiteral(hostname)) {
      const v4 = hostname.includes(':') ? null : parseIPv4(hostname);
      addresses = [v4 === null ? { address: hostname, family: 6 } : { address: formatIPv4(v4), family: 4 }];
    } else {
      try {
        addresses = await this.resolver.resolve(hostname);
      } catch (error) {
        return this.refuse(hostname, `DNS lookup failed (${(error as { code?: string }).code ?? 'error'})`);
      }
      if (addresses.length === 0) return this.refuse(hostname, 'no A or AAAA record');
    }

    if (!this.config.webhookAllowPrivateTargets) {
      for (const { address } of addresses) {
        const verdict = checkAddress(address);
        if (!verdict.allowed) return this.refuse(hostname, `resolves to a forbidden address: ${verdict.reason}`);
      }
    }
    const [first] = addresses;
    return { ok: true, target: { url, hostname, address: first.address, family: first.family } };
  }

  private refuse(hostname: string, detail: string): TargetResult {
    this.logger.warn({ hostname, detail }, 'webhook target refused');
    return { ok: false, reason: REFUSED_TARGET };
  }
}
