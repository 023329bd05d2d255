import { createServer } from 'node:net';
import type { ModuleMetadata } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Test } from '@nestjs/testing';
import { ApiKeyService, MerchantService } from '@app/account';
import { AppConfig, loadConfig, prepareInfrastructure, randomToken } from '@app/core';
import { ApiModule } from '../../apps/api/src/api.module';
import { API_APP_OPTIONS, configureApp } from '../../apps/api/src/configure-app';
import { ApiClient } from './api-client';

export interface TestApp {
  app: NestExpressApplication;
  config: AppConfig;
  baseUrl: string;
  /** An unauthenticated client; `.as(key)` for an authenticated one. */
  api: ApiClient;
  close(): Promise<void>;
}

export interface TestAppOptions {
  env?: Record<string, string>;
  /** Extra controllers or providers, for tests that need a route the product does not have. */
  extra?: Pick<ModuleMetadata, 'controllers' | 'providers'>;
  /** Providers replaced everywhere they are declared (e.g. the OS DNS resolver), for what a test cannot arrange for real. */
  overrides?: { provide: unknown; useValue: unknown }[];
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * The real ApiModule with the real configureApp, over real HTTP on Postgres and Redis. Each app gets
 * its own QUEUE_PREFIX, so its queues and rate-limit counters are its own.
 */
export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const port = await freePort();
  const config = loadConfig({
    ...process.env,
    PORT: String(port),
    PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
    QUEUE_PREFIX: `${process.env.QUEUE_PREFIX}-${randomToken(4)}`,
    ...options.env,
  });
  const builder = Test.createTestingModule({
    imports: [ApiModule.register(config)],
    controllers: options.extra?.controllers,
    providers: options.extra?.providers,
  });
  for (const { provide, useValue } of options.overrides ?? []) builder.overrideProvider(provide).useValue(useValue);
  const moduleRef = await builder.compile();
  const app = moduleRef.createNestApplication<NestExpressApplication>(API_APP_OPTIONS);
  configureApp(app);
  await app.listen(port, '127.0.0.1');
  const baseUrl = `http://127.0.0.1:${port}`;
  return { app, config, baseUrl, api: new ApiClient(baseUrl), close: () => app.close() };
}

/**
 * A database of its own, migrated, for suites whose apps must not see other suites' events (every
 * app with workers runs the outbox relay over its whole database). Dropped by the global teardown.
 */
export async function isolatedDatabase(): Promise<{ DATABASE_URL: string }> {
  const url = new URL(process.env.DATABASE_URL!);
  url.pathname = `${url.pathname}_${randomToken(4).toLowerCase()}`;
  const env = { DATABASE_URL: url.toString() };
  await prepareInfrastructure(loadConfig({ ...process.env, ...env }));
  return env;
}

export interface SeededMerchant {
  accountId: string;
  userId: string;
  /** The owner's sign-in, for the OAuth consent pages. */
  email: string;
  password: string;
  /** read+write key */
  key: string;
  readKey: string;
  writeKey: string;
}

let seq = 0;

/** An account with its owner and three keys (read+write, read, write), made as the CLI makes them. */
export async function seedMerchant(testApp: TestApp, input: { name?: string; currency?: string } = {}): Promise<SeededMerchant> {
  seq += 1;
  const unique = `${Date.now().toString(36)}-${seq}-${randomToken(3)}`;
  const email = `owner-${unique}@example.test`;
  const password = 'correct horse battery staple';
  const merchant = await testApp.app.get(MerchantService).createMerchant({
    name: input.name ?? `Merchant ${unique}`,
    email,
    password,
    currency: input.currency,
  });
  const keys = testApp.app.get(ApiKeyService);
  const [both, read, write] = await Promise.all([
    keys.create(merchant.accountId, ['read', 'write'], 'test'),
    keys.create(merchant.accountId, ['read'], 'test read'),
    keys.create(merchant.accountId, ['write'], 'test write'),
  ]);
  return { ...merchant, email, password, key: both.key, readKey: read.key, writeKey: write.key };
}
