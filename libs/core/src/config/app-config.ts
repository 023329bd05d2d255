import { isIP } from 'node:net';
import { KeyRingFormatError, parseKeyRing } from '../crypto/key-ring';
/**
 * Every environment variable the service reads is read here, once, at start.
 * A wrong value stops the process with one line naming the variable (see ConfigError).
 */
export type PaymentsMode = 'fake' | 'stripe';
export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface AppConfig {
  port: number;
  publicBaseUrl: string;
  authUrl: string;
  /** The serving connections: the API's and the worker's pools; may name a pooler in transaction mode. */
  databaseUrl: string;
  /**
   * A connection straight to PostgreSQL, for what needs a session of its own: the LISTEN connection,
   * the migrations and their advisory lock. DATABASE_URL when unset; set when DATABASE_URL names a
   * pooler (docs/scaling.md, PgBouncer).
   */
  databaseDirectUrl: string;
  /**
   * The connection that creates the database and the roles and runs the migrations; DATABASE_DIRECT_URL
   * when unset (docs/operations.md, Database roles).
   */
  databaseMigrationUrl: string;
  /**
   * A streaming replica (or a pooler in front of one) that list pages, reports, statements, the
   * Overview chart and the events list read from; null: every read goes to DATABASE_URL
   * (docs/scaling.md, Read replica).
   */
  databaseReadUrl: string | null;
  /** Past this much replay lag the replica is not read (READ_REPLICA_MAX_LAG_MS). */
  readReplicaMaxLagMs: number;
  /** How long a read waits for the replica to replay its credential's last write before it reads the primary (READ_REPLICA_WAIT_MS). */
  readReplicaWaitMs: number;
  /** A statement on the replica unanswered this long fails, and the read goes to the primary (READ_REPLICA_QUERY_TIMEOUT_MS). */
  readReplicaQueryTimeoutMs: number;
  redisUrl: string;
  queuePrefix: string;
  runWorkers: boolean;
  /**
   * How many nice levels below the process the worker thread of `npm start` runs (WORKER_THREAD_NICE;
   * 0, off, by default: docs/operations.md, Processes, says what the bench measured either way).
   */
  workerThreadNice: number;
  paymentsMode: PaymentsMode;
  stripeSecretKey: string | null;
  stripeWebhookSecret: string | null;
  /** Where the Stripe SDK sends its requests; unset means Stripe itself. Tests point it at a local double. */
  stripeApiBaseUrl: string | null;
  supplier: SupplierName;
  /** How long one supplier HTTP call may take before it counts as a (transient) timeout. */
  supplierTimeoutMs: number;
  /** Set when supplier or fxRates is `tango` (docs/suppliers.md). */
  tango: TangoConfig | null;
  /** Where exchange rates come from (FX_RATES; default: the supplier's name). docs/currencies.md, Rate sources. */
  fxRates: FxRatesSourceName;
  /** Basis points taken off the mid rate, against the merchant (FX_MARKUP_BPS). */
  fxMarkupBps: number;
  /** Card issuances one worker process runs at once (docs/rewards.md, Issuance); not bounded by the database pool. */
  issuanceConcurrency: number;
  /** How long the sandbox supplier takes per call, plus up to `sandboxSupplierJitterMs` drawn per call. */
  sandboxSupplierLatencyMs: number;
  sandboxSupplierJitterMs: number;
  smtpUrl: string | null;
  mailOutboxDir: string;
  mailFrom: string;
  /** After a temporary SMTP refusal, the wait before the first retry; it doubles each time (docs/delivery.md). */
  emailRetryBaseMs: number;
  /** Attempts at a reward e-mail before it is FAILED (docs/delivery.md). */
  emailMaxAttempts: number;
  /** Where reward texts go (docs/delivery.md, SMS): JSON files in `smsOutboxDir`, or Twilio (`twilio` then set). */
  smsProvider: SmsProviderName;
  smsOutboxDir: string;
  /** Set when smsProvider is `twilio`. */
  twilio: TwilioConfig | null;
  rateLimitPerMinute: number;
  /** Requests per client address a minute to the credential-free redemption page and API (docs/redemption.md). */
  redemptionRateLimitPerMinute: number;
  /** Password hashes (scrypt) this process computes at once, and how many more may wait (docs/auth.md, Password hashing). */
  passwordHashConcurrency: number;
  passwordHashQueue: number;
  expirySweepIntervalMs: number;
  /** The length of one reminder day (docs/delivery.md, Reminders): 86400000; staging and tests shorten it. */
  reminderUnitMs: number;
  webhookRetryBaseMs: number;
  webhookMaxAttempts: number;
  webhookTimeoutMs: number;
  webhookAllowPrivateTargets: boolean;
  logLevel: LogLevel;
  /**
   * Express's `trust proxy`: false (the socket's peer is the client), a number of proxy hops, or the
   * addresses/CIDRs of trusted proxies. Decides the client address per-address limits count against.
   */
  trustProxy: TrustProxy;
  /** Bearer token that opens GET /metrics (and the worker's METRICS_PORT); unset: loopback clients only. */
  metricsToken: string | null;
  /** Where the worker side serves its own /metrics; unset: it serves none. */
  metricsPort: number | null;
  /**
   * ENCRYPTION_KEYS, the key ring text (`id:base64key,...`, checked here); null when unset, which only
   * development allows: withEncryptionKeys then fills it from the development key file (docs/secrets.md).
   */
  encryptionKeys: string | null;
}

export type TrustProxy = false | number | string[];

export type SupplierName = 'sandbox' | 'tango';
export type SmsProviderName = 'outbox' | 'twilio';

export interface TwilioConfig {
  /** Twilio's API host (TWILIO_BASE_URL), without a trailing slash; tests point it at a local double. */
  baseUrl: string;
  accountSid: string;
  authToken: string;
  /** The sender: a Twilio number in E.164 (or an alphanumeric sender id). */
  from: string;
}

export const TWILIO_API_URL = 'https://api.twilio.com';
export type FxRatesSourceName = 'sandbox' | 'tango';

export interface TangoConfig {
  /** The host, without `/raas/v2`, and without a trailing slash. */
  baseUrl: string;
  platformName: string;
  platformKey: string;
  customerIdentifier: string;
  accountIdentifier: string;
}

/** Tango Card's production host; its integration (sandbox) host is https://integration-api.tangocard.com. */
export const TANGO_PRODUCTION_URL = 'https://api.tangocard.com';

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    problem: string,
  ) {
    super(`Invalid configuration: ${variable} ${problem}`);
  }
}

type Env = Record<string, string | undefined>;

function raw(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const value = raw(env, name);
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new ConfigError(name, `must be an integer from ${min} to ${max} (got "${value}")`);
  }
  return Number(value);
}

function boolean(env: Env, name: string, fallback: boolean): boolean {
  const value = raw(env, name);
  if (value === undefined) return fallback;
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw new ConfigError(name, `must be "true" or "false" (got "${value}")`);
}

function oneOf<T extends string>(env: Env, name: string, fallback: T, allowed: readonly T[]): T {
  const value = raw(env, name);
  if (value === undefined) return fallback;
  if (!allowed.includes(value as T)) {
    throw new ConfigError(name, `must be one of ${allowed.join(', ')} (got "${value}")`);
  }
  return value as T;
}

function url(env: Env, name: string, fallback: string | null, protocols: string[]): string | null {
  const value = raw(env, name);
  if (value === undefined) return fallback;
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    throw new ConfigError(name, `must be a URL (got "${value}")`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(name, `must use ${protocols.join(' or ')} (got "${parsed.protocol}")`);
  }
  return value;
}

const withoutTrailingSlash = (value: string) => value.replace(/\/+$/, '');

/**
 * Whether DATABASE_URL names a pooler in transaction mode (DATABASE_DIRECT_URL set to something else).
 * A pooler hands each transaction whichever server session is free and passes no `options` on: the
 * serving sessions then get SESSION_OPTIONS' settings as defaults of their login user in the database
 * (applyPooledSessionDefaults in libs/core/src/database/database-roles.ts, at migration time), and the webhook bookkeeping sets its own with SET
 * LOCAL in each transaction (docs/scaling.md, PgBouncer).
 */
export function throughPooler(config: Pick<AppConfig, 'databaseUrl' | 'databaseDirectUrl'>): boolean {
  return config.databaseDirectUrl !== config.databaseUrl;
}

export function loadConfig(env: Env = process.env): AppConfig {
  const port = integer(env, 'PORT', 3000, 0, 65535);
  const publicBaseUrl = withoutTrailingSlash(
    url(env, 'PUBLIC_BASE_URL', `http://localhost:${port}`, ['http:', 'https:'])!,
  );
  const paymentsMode = oneOf<PaymentsMode>(env, 'PAYMENTS_MODE', 'fake', ['fake', 'stripe']);
  const stripeSecretKey = raw(env, 'STRIPE_SECRET_KEY') ?? null;
  const stripeWebhookSecret = raw(env, 'STRIPE_WEBHOOK_SECRET') ?? null;
  if (paymentsMode === 'stripe') {
    if (!stripeSecretKey) throw new ConfigError('STRIPE_SECRET_KEY', 'is required when PAYMENTS_MODE=stripe');
    if (!stripeWebhookSecret) throw new ConfigError('STRIPE_WEBHOOK_SECRET', 'is required when PAYMENTS_MODE=stripe');
  }
  const queuePrefix = raw(env, 'QUEUE_PREFIX') ?? 'rewards';
  if (!/^[A-Za-z0-9_.:-]{1,64}$/.test(queuePrefix)) {
    throw new ConfigError('QUEUE_PREFIX', `must be 1-64 letters, digits or _.:- (got "${queuePrefix}")`);
  }
  const supplier = oneOf<SupplierName>(env, 'SUPPLIER', 'sandbox', ['sandbox', 'tango']);
  const fxRates = oneOf<FxRatesSourceName>(env, 'FX_RATES', supplier, ['sandbox', 'tango']);
  const mailFrom = raw(env, 'MAIL_FROM') ?? 'Rewards <rewards@localhost>';
  if (!/<[^<>@\s]+@[^<>@\s]+>$|^[^<>@\s]+@[^<>@\s]+$/.test(mailFrom)) {
    throw new ConfigError('MAIL_FROM', `must be an address, optionally as "Name <address>" (got "${mailFrom}")`);
  }
  const smsProvider = oneOf<SmsProviderName>(env, 'SMS_PROVIDER', 'outbox', ['outbox', 'twilio']);
  const databaseUrl = url(env, 'DATABASE_URL', 'postgres://postgres@127.0.0.1:5432/rewards', ['postgres:', 'postgresql:'])!;
  const databaseDirectUrl = url(env, 'DATABASE_DIRECT_URL', databaseUrl, ['postgres:', 'postgresql:'])!;
  return {
    port,
    publicBaseUrl,
    authUrl: withoutTrailingSlash(url(env, 'AUTH_URL', publicBaseUrl, ['http:', 'https:'])!),
    databaseUrl,
    databaseDirectUrl,
    databaseMigrationUrl: url(env, 'DATABASE_MIGRATION_URL', databaseDirectUrl, ['postgres:', 'postgresql:'])!,
    databaseReadUrl: url(env, 'DATABASE_READ_URL', null, ['postgres:', 'postgresql:']),
    readReplicaMaxLagMs: integer(env, 'READ_REPLICA_MAX_LAG_MS', 5_000, 0, 3_600_000),
    readReplicaWaitMs: integer(env, 'READ_REPLICA_WAIT_MS', 250, 0, 10_000),
    readReplicaQueryTimeoutMs: integer(env, 'READ_REPLICA_QUERY_TIMEOUT_MS', 30_000, 1_000, 600_000),
    redisUrl: url(env, 'REDIS_URL', 'redis://127.0.0.1:6379', ['redis:', 'rediss:'])!,
    queuePrefix,
    runWorkers: boolean(env, 'RUN_WORKERS', true),
    workerThreadNice: integer(env, 'WORKER_THREAD_NICE', 0, 0, 19),
    paymentsMode,
    stripeSecretKey,
    stripeWebhookSecret,
    stripeApiBaseUrl: url(env, 'STRIPE_API_BASE_URL', null, ['http:', 'https:']),
    supplier,
    supplierTimeoutMs: integer(env, 'SUPPLIER_TIMEOUT_MS', 10_000, 100, 120_000),
    tango: supplier === 'tango' ? tangoConfig(env, 'SUPPLIER=tango') : fxRates === 'tango' ? tangoConfig(env, 'FX_RATES=tango') : null,
    fxRates,
    fxMarkupBps: integer(env, 'FX_MARKUP_BPS', 0, 0, 5000),
    issuanceConcurrency: integer(env, 'ISSUANCE_CONCURRENCY', 16, 1, 1000),
    sandboxSupplierLatencyMs: integer(env, 'SANDBOX_SUPPLIER_LATENCY_MS', 100, 0, 120_000),
    sandboxSupplierJitterMs: integer(env, 'SANDBOX_SUPPLIER_JITTER_MS', 0, 0, 120_000),
    smtpUrl: url(env, 'SMTP_URL', null, ['smtp:', 'smtps:']),
    mailOutboxDir: raw(env, 'MAIL_OUTBOX_DIR') ?? './var/outbox',
    mailFrom,
    emailRetryBaseMs: integer(env, 'EMAIL_RETRY_BASE_MS', 60_000, 1, 86_400_000),
    emailMaxAttempts: integer(env, 'EMAIL_MAX_ATTEMPTS', 8, 1, 100),
    smsProvider,
    smsOutboxDir: raw(env, 'SMS_OUTBOX_DIR') ?? './var/sms',
    twilio: smsProvider === 'twilio' ? twilioConfig(env) : null,
    rateLimitPerMinute: integer(env, 'RATE_LIMIT_PER_MINUTE', 300, 1, 1_000_000),
    redemptionRateLimitPerMinute: integer(env, 'REDEMPTION_RATE_LIMIT_PER_MINUTE', 120, 1, 1_000_000),
    passwordHashConcurrency: integer(env, 'PASSWORD_HASH_CONCURRENCY', 2, 1, 64),
    passwordHashQueue: integer(env, 'PASSWORD_HASH_QUEUE', 16, 0, 10_000),
    expirySweepIntervalMs: integer(env, 'EXPIRY_SWEEP_INTERVAL_MS', 60_000, 100, 86_400_000),
    reminderUnitMs: integer(env, 'REMINDER_UNIT_MS', 86_400_000, 1, 86_400_000),
    webhookRetryBaseMs: integer(env, 'WEBHOOK_RETRY_BASE_MS', 30_000, 1, 21_600_000),
    webhookMaxAttempts: integer(env, 'WEBHOOK_MAX_ATTEMPTS', 12, 1, 100),
    webhookTimeoutMs: integer(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 100, 120_000),
    webhookAllowPrivateTargets: boolean(env, 'WEBHOOK_ALLOW_PRIVATE_TARGETS', false),
    logLevel: oneOf<LogLevel>(env, 'LOG_LEVEL', 'info', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
    trustProxy: trustProxy(env),
    metricsToken: raw(env, 'METRICS_TOKEN') ?? null,
    metricsPort: raw(env, 'METRICS_PORT') === undefined ? null : integer(env, 'METRICS_PORT', 0, 1, 65535),
    encryptionKeys: encryptionKeys(env),
  };
}

const TANGO_REQUIRED = [
  'TANGO_PLATFORM_NAME',
  'TANGO_PLATFORM_KEY',
  'TANGO_CUSTOMER_IDENTIFIER',
  'TANGO_ACCOUNT_IDENTIFIER',
] as const;

/** SUPPLIER=tango (or FX_RATES=tango): every missing setting is named in the one line that stops the start. */
function tangoConfig(env: Env, because: string): TangoConfig {
  const missing = TANGO_REQUIRED.filter((name) => raw(env, name) === undefined);
  if (missing.length > 0) {
    throw new ConfigError(missing.join(', '), `${missing.length === 1 ? 'is' : 'are'} required when ${because}`);
  }
  const baseUrl = withoutTrailingSlash(url(env, 'TANGO_BASE_URL', TANGO_PRODUCTION_URL, ['http:', 'https:'])!);
  if (/\/raas(\/v2)?$/i.test(new URL(baseUrl).pathname)) {
    throw new ConfigError('TANGO_BASE_URL', `must be the host without /raas/v2 (got "${baseUrl}")`);
  }
  return {
    baseUrl,
    platformName: raw(env, 'TANGO_PLATFORM_NAME')!,
    platformKey: raw(env, 'TANGO_PLATFORM_KEY')!,
    customerIdentifier: raw(env, 'TANGO_CUSTOMER_IDENTIFIER')!,
    accountIdentifier: raw(env, 'TANGO_ACCOUNT_IDENTIFIER')!,
  };
}

const TWILIO_REQUIRED = ['TWILIO_ACCOUNT_SID', 'TWILIO_AUTH_TOKEN', 'TWILIO_FROM'] as const;

/** SMS_PROVIDER=twilio: every missing setting is named in the one line that stops the start. */
function twilioConfig(env: Env): TwilioConfig {
  const missing = TWILIO_REQUIRED.filter((name) => raw(env, name) === undefined);
  if (missing.length > 0) {
    throw new ConfigError(missing.join(', '), `${missing.length === 1 ? 'is' : 'are'} required when SMS_PROVIDER=twilio`);
  }
  return {
    baseUrl: withoutTrailingSlash(url(env, 'TWILIO_BASE_URL', TWILIO_API_URL, ['http:', 'https:'])!),
    accountSid: raw(env, 'TWILIO_ACCOUNT_SID')!,
    authToken: raw(env, 'TWILIO_AUTH_TOKEN')!,
    from: raw(env, 'TWILIO_FROM')!,
  };
}

function encryptionKeys(env: Env): string | null {
  const value = raw(env, 'ENCRYPTION_KEYS');
  if (value === undefined) {
    if (raw(env, 'NODE_ENV') === 'production') {
      throw new ConfigError('ENCRYPTION_KEYS', 'is required when NODE_ENV=production (comma-separated id:base64key, 32-byte keys; see docs/secrets.md)');
    }
    return null;
  }
  try {
    parseKeyRing(value);
  } catch (error) {
    if (error instanceof KeyRingFormatError) throw new ConfigError('ENCRYPTION_KEYS', error.message);
    throw error;
  }
  return value;
}

const PROXY_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

/** Unset or `false`: trust no proxy. A hop count, or comma-separated proxy addresses/CIDRs (or Express's names). */
function trustProxy(env: Env): TrustProxy {
  const value = raw(env, 'TRUST_PROXY');
  if (value === undefined || value === 'false') return false;
  if (/^\d+$/.test(value)) {
    const hops = Number(value);
    if (hops > 20) throw new ConfigError('TRUST_PROXY', `must be a hop count from 0 to 20 or a list of addresses (got "${value}")`);
    return hops === 0 ? false : hops;
  }
  const entries = value.split(',').map((entry) => entry.trim()).filter(Boolean);
  for (const entry of entries) {
    const [address, prefix, extra] = entry.split('/');
    const family = isIP(address);
    const prefixOk = prefix === undefined || (/^\d+$/.test(prefix) && Number(prefix) <= (family === 6 ? 128 : 32));
    if (!PROXY_NAMES.includes(entry) && (!family || !prefixOk || extra !== undefined)) {
      throw new ConfigError('TRUST_PROXY', `must be a hop count or comma-separated addresses/CIDRs (got "${entry}")`);
    }
  }
  return entries;
}

/** A URL safe to print: the password, if any, is replaced. */
export function redactUrl(value: string): string {
  try {
    const parsed = new URL(value);
    if (parsed.password) parsed.password = '***';
    return parsed.toString().replace(/\/$/, '');
  } catch {
    return '(unparseable URL)';
  }
}
