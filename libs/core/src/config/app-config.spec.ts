import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, loadConfig, redactUrl } from './app-config';

const TANGO = {
  TANGO_PLATFORM_NAME: 'QAPlatform',
  TANGO_PLATFORM_KEY: 'secret-key',
  TANGO_CUSTOMER_IDENTIFIER: 'cust-1',
  TANGO_ACCOUNT_IDENTIFIER: 'acct-1',
};

describe('loadConfig', () => {
  it('gives the documented defaults for an empty environment', () => {
    expect(loadConfig({})).toMatchObject({
      port: 3000,
      publicBaseUrl: 'http://localhost:3000',
      authUrl: 'http://localhost:3000',
      databaseUrl: 'postgres://postgres@127.0.0.1:5432/rewards',
      redisUrl: 'redis://127.0.0.1:6379',
      queuePrefix: 'rewards',
      runWorkers: true,
      workerThreadNice: 0,
      paymentsMode: 'fake',
      supplier: 'sandbox',
      supplierTimeoutMs: 10000,
      tango: null,
      issuanceConcurrency: 16,
      sandboxSupplierLatencyMs: 100,
      sandboxSupplierJitterMs: 0,
      smtpUrl: null,
      mailOutboxDir: './var/outbox',
      mailFrom: 'Rewards <rewards@localhost>',
      emailRetryBaseMs: 60000,
      emailMaxAttempts: 8,
      smsProvider: 'outbox',
      smsOutboxDir: './var/sms',
      twilio: null,
      rateLimitPerMinute: 300,
      redemptionRateLimitPerMinute: 120,
      passwordHashConcurrency: 2,
      passwordHashQueue: 16,
      expirySweepIntervalMs: 60000,
      reminderUnitMs: 86400000,
      webhookRetryBaseMs: 30000,
      webhookMaxAttempts: 12,
      webhookTimeoutMs: 10000,
      webhookAllowPrivateTargets: false,
      logLevel: 'info',
      trustProxy: false,
      metricsToken: null,
      metricsPort: null,
      encryptionKeys: null,
    });
  });

  it('TRUST_PROXY: unset trusts no proxy; a hop count or a list of addresses and CIDRs goes to Express as is', () => {
    expect(loadConfig({ TRUST_PROXY: 'false' }).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '0' }).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 192.168.1.7,fd00::/8,loopback' }).trustProxy).toEqual([
      '10.0.0.0/8',
      '192.168.1.7',
      'fd00::/8',
      'loopback',
    ]);
  });

  it('SUPPLIER=tango reads the Tango settings; the base URL defaults to Tango production and loses a trailing slash', () => {
    expect(loadConfig({ SUPPLIER: 'tango', ...TANGO }).tango).toEqual({
      baseUrl: 'https://api.tangocard.com',
      platformName: 'QAPlatform',
      platformKey: 'secret-key',
      customerIdentifier: 'cust-1',
      accountIdentifier: 'acct-1',
    });
    expect(loadConfig({ SUPPLIER: 'tango', ...TANGO, TANGO_BASE_URL: 'https://integration-api.tangocard.com/' }).tango!.baseUrl).toBe(
      'https://integration-api.tangocard.com',
    );
    // Tango settings are not required, nor read, for the sandbox.
    expect(loadConfig({ TANGO_PLATFORM_NAME: 'x' }).tango).toBeNull();
  });

  it('SUPPLIER=tango without its settings is refused with one line naming every missing one', () => {
    expect(() => loadConfig({ SUPPLIER: 'tango' })).toThrow(
      new ConfigError(
        'TANGO_PLATFORM_NAME, TANGO_PLATFORM_KEY, TANGO_CUSTOMER_IDENTIFIER, TANGO_ACCOUNT_IDENTIFIER',
        'are required when SUPPLIER=tango',
      ),
    );
    const { TANGO_PLATFORM_KEY: _key, ...withoutKey } = TANGO;
    expect(() => loadConfig({ SUPPLIER: 'tango', ...withoutKey, TANGO_ACCOUNT_IDENTIFIER: ' ' })).toThrow(
      'Invalid configuration: TANGO_PLATFORM_KEY, TANGO_ACCOUNT_IDENTIFIER are required when SUPPLIER=tango',
    );
  });

  it('derives PUBLIC_BASE_URL from PORT and AUTH_URL from PUBLIC_BASE_URL', () => {
    expect(loadConfig({ PORT: '8080' }).publicBaseUrl).toBe('http://localhost:8080');
    expect(loadConfig({ PUBLIC_BASE_URL: 'https://api.example.com/' }).authUrl).toBe('https://api.example.com');
  });

  it.each([
    [{ PORT: 'eighty' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'],
    [{ REDIS_URL: 'not a url' }, 'REDIS_URL'],
    [{ RUN_WORKERS: 'yes' }, 'RUN_WORKERS'],
    [{ WORKER_THREAD_NICE: '20' }, 'WORKER_THREAD_NICE'],
    [{ PAYMENTS_MODE: 'paypal' }, 'PAYMENTS_MODE'],
    [{ PAYMENTS_MODE: 'stripe' }, 'STRIPE_SECRET_KEY'],
    [{ PAYMENTS_MODE: 'stripe', STRIPE_SECRET_KEY: 'sk_test_x' }, 'STRIPE_WEBHOOK_SECRET'],
    [{ SUPPLIER: 'acme' }, 'SUPPLIER'],
    [{ SUPPLIER: 'tango', ...TANGO, TANGO_BASE_URL: 'https://integration-api.tangocard.com/raas/v2' }, 'TANGO_BASE_URL'],
    [{ SUPPLIER: 'tango', ...TANGO, TANGO_BASE_URL: 'ftp://tango' }, 'TANGO_BASE_URL'],
    [{ SUPPLIER_TIMEOUT_MS: '50' }, 'SUPPLIER_TIMEOUT_MS'],
    [{ ISSUANCE_CONCURRENCY: '0' }, 'ISSUANCE_CONCURRENCY'],
    [{ SANDBOX_SUPPLIER_LATENCY_MS: 'slow' }, 'SANDBOX_SUPPLIER_LATENCY_MS'],
    [{ SANDBOX_SUPPLIER_JITTER_MS: '-5' }, 'SANDBOX_SUPPLIER_JITTER_MS'],
    [{ SMTP_URL: 'http://mail' }, 'SMTP_URL'],
    [{ RATE_LIMIT_PER_MINUTE: '0' }, 'RATE_LIMIT_PER_MINUTE'],
    [{ PASSWORD_HASH_CONCURRENCY: '0' }, 'PASSWORD_HASH_CONCURRENCY'],
    [{ PASSWORD_HASH_QUEUE: '-1' }, 'PASSWORD_HASH_QUEUE'],
    [{ WEBHOOK_MAX_ATTEMPTS: '-1' }, 'WEBHOOK_MAX_ATTEMPTS'],
    [{ WEBHOOK_ALLOW_PRIVATE_TARGETS: '1' }, 'WEBHOOK_ALLOW_PRIVATE_TARGETS'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ QUEUE_PREFIX: 'has space' }, 'QUEUE_PREFIX'],
    [{ MAIL_FROM: 'nobody' }, 'MAIL_FROM'],
    [{ TRUST_PROXY: 'true' }, 'TRUST_PROXY'],
    [{ METRICS_PORT: 'http' }, 'METRICS_PORT'],
    [{ TRUST_PROXY: '10.0.0.0/33' }, 'TRUST_PROXY'],
    [{ TRUST_PROXY: 'proxy.internal' }, 'TRUST_PROXY'],
  ])('%j is refused with one line naming %s', (env, variable) => {
    let error: unknown;
    try {
      loadConfig(env);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).variable).toBe(variable);
    expect((error as ConfigError).message).toMatch(new RegExp(`^Invalid configuration: ${variable} `));
    expect((error as ConfigError).message).not.toContain('\n');
  });

  it('.env.example lists every variable the service reads, each with its default', () => {
    const root = join(__dirname, '..', '..', '..', '..');
    const example = Object.fromEntries(
      readFileSync(join(root, '.env.example'), 'utf8')
        .split('\n')
        .filter((line) => /^[A-Z_]+=/.test(line))
        .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
    );
    const read = new Set([...readFileSync(join(__dirname, 'app-config.ts'), 'utf8').matchAll(/'([A-Z][A-Z0-9_]+)'/g)].map((m) => m[1]));
    expect(Object.keys(example).sort()).toEqual([...read].sort());
    expect(loadConfig(example)).toEqual(loadConfig({}));
  });

  it('never prints a password from a URL', () => {
    expect(redactUrl('postgres://app:hunter2@db:5432/rewards')).toBe('postgres://app:***@db:5432/rewards');
  });
});
