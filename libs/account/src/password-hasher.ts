import { Inject, Injectable } from '@nestjs/common';
import { randomBytes, scrypt as scryptCallback, ScryptOptions, timingSafeEqual } from 'node:crypto';
import { Counter } from 'prom-client';
import { APP_CONFIG, AppConfig, metricsRegistry, UnavailableError } from '@app/core';

/** The key derivation function: scrypt itself, replaced only by tests that must hold a hash in progress. */
export type PasswordKdf = (password: string, salt: Buffer, keylen: number, options: ScryptOptions) => Promise<Buffer>;
export const PASSWORD_KDF = Symbol('PASSWORD_KDF');

/** docs/operations.md, Metrics. */
const passwordHashing = new Counter({
  name: 'password_hashing_total',
  help: 'Password hashes (scrypt, to set or to check a password) by outcome: computed, or refused as busy (503).',
  labelNames: ['outcome'] as const,
  registers: [metricsRegistry],
});

const scrypt: PasswordKdf = (password, salt, keylen, options) =>
  new Promise<Buffer>((resolve, reject) =>
    scryptCallback(password, salt, keylen, options, (error, key) => (error ? reject(error) : resolve(key))),
  );

export const passwordKdfProvider = { provide: PASSWORD_KDF, useValue: scrypt };

// scrypt N=2^15, r=8, p=1 (OWASP's password storage minimum for scrypt); ~50 ms and 32 MiB per hash here.
const PARAMS = { N: 2 ** 15, r: 8, p: 1 };
const KEY_LENGTH = 32;
const MAX_MEMORY = 64 * 1024 * 1024;

/**
 * Slow, salted password hashes, self-describing so the parameters can be raised later.
 *
 * Every hash of this process goes through one gate: at most PASSWORD_HASH_CONCURRENCY at once and
 * PASSWORD_HASH_QUEUE waiting; past that `503` with Retry-After. scrypt runs on libuv's small thread
 * pool, so a flood of hashes would otherwise queue every sign-in (and file and DNS work) behind it
 * (docs/auth.md, Password hashing).
 */
@Injectable()
export class PasswordHasher {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    @Inject(APP_CONFIG) private readonly config: Pick<AppConfig, 'passwordHashConcurrency' | 'passwordHashQueue'>,
    @Inject(PASSWORD_KDF) private readonly kdf: PasswordKdf,
  ) {}

  async hash(password: string): Promise<string> {
    const salt = randomBytes(16);
    const key = await this.derive(password, salt, KEY_LENGTH, { ...PARAMS, maxmem: MAX_MEMORY });
    return ['scrypt', PARAMS.N, PARAMS.r, PARAMS.p, salt.toString('base64'), key.toString('base64')].join('$');
  }

  async verify(password: string, stored: string): Promise<boolean> {
    const [scheme, n, r, p, salt, key] = stored.split('$');
    if (scheme !== 'scrypt' || !key) return false;
    const expected = Buffer.from(key, 'base64');
    const actual = await this.derive(password, Buffer.from(salt, 'base64'), expected.length, {
      N: Number(n),
      r: Number(r),
      p: Number(p),
      maxmem: MAX_MEMORY,
    });
    return timingSafeEqual(actual, expected);
  }

  private async derive(password: string, salt: Buffer, keylen: number, options: ScryptOptions): Promise<Buffer> {
    await this.enter();
    try {
      passwordHashing.inc({ outcome: 'computed' });
      return await this.kdf(password, salt, keylen, options);
    } finally {
      this.leave();
    }
  }

  private async enter(): Promise<void> {
    if (this.active < this.config.passwordHashConcurrency) {
      this.active += 1;
      return;
    }
    if (this.waiting.length >= this.config.passwordHashQueue) {
      passwordHashing.inc({ outcome: 'busy' });
      throw new UnavailableError('Too many passwords are being checked right now; retry in a moment.', 1);
    }
    // The slot is handed over by leave(), so `active` never drops below the bound while some wait.
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  private leave(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.active -= 1;
  }
}
