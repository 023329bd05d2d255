import { createServer } from 'node:net';
import { getQueueToken } from '@nestjs/bull';
import { Injectable, type INestApplicationContext, type ModuleMetadata, type OnApplicationShutdown } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Test } from '@nestjs/testing';
import { Logger } from 'nestjs-pino';
import { ApiKeyService, MerchantService } from '@app/account';
import { AppConfig, CARD_ISSUANCE_QUEUE, loadConfig, MAIL_QUEUE, randomToken, WEBHOOK_DELIVERY_QUEUE } from '@app/core';
import { ApiModule } from '../../apps/api/src/api.module';
import { API_APP_OPTIONS, configureApp } from '../../apps/api/src/configure-app';
import { WorkerAppModule } from '../../apps/worker/src/worker-app.module';
import { ApiClient } from './api-client';
import { preparePooledDatabase, throughRunPooler } from './pooler';
// Plain JavaScript, shared with the Jest environment that gives each file its database.
const fileDatabase = require('./file-database') as { copyTemplate(label: string): Promise<string> };

export interface TestApp {
  app: NestExpressApplication;
  config: AppConfig;
  baseUrl: string;
  /** An unauthenticated client; `.as(key)` for an authenticated one. */
  api: ApiClient;
  /** The provider overrides it was started with; startTestWorker applies them too. */
  overrides: Override[];
  close(): Promise<void>;
}

type Override = { provide: unknown; useValue: unknown };

export interface TestAppOptions {
  env?: Record<string, string>;
  /** Extra controllers or providers, for tests that need a route the product does not have. */
  extra?: Pick<ModuleMetadata, 'controllers' | 'providers'>;
  /** Providers replaced everywhere they are declared (e.g. the OS DNS resolver), for what a test cannot arrange for real. */
  overrides?: Override[];
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
 * its own QUEUE_PREFIX, so its queues and rate-limit counters are its own. As in production, the API
 * runs no background work: a suite that needs cards issued, e-mail sent, events relayed, webhooks
 * delivered or rewards expired also starts startTestWorker(app).
 */
export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const port = await freePort();
  const config = loadConfig(
    throughRunPooler({
      ...process.env,
      PORT: String(port),
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      QUEUE_PREFIX: `${process.env.QUEUE_PREFIX}-${randomToken(4)}`,
      ...options.env,
    }),
  );
  await preparePooledDatabase(config);
  const builder = Test.createTestingModule({
    imports: [ApiModule.register(config)],
    controllers: options.extra?.controllers,
    providers: options.extra?.providers,
  });
  const overrides = options.overrides ?? [];
  for (const { provide, useValue } of overrides) builder.overrideProvider(provide).useValue(useValue);
  const moduleRef = await builder.compile();
  const app = moduleRef.createNestApplication<NestExpressApplication>(API_APP_OPTIONS);
  configureApp(app);
  await app.listen(port, '127.0.0.1');
  const baseUrl = `http://127.0.0.1:${port}`;
  return { app, config, baseUrl, api: new ApiClient(baseUrl), overrides, close: () => app.close() };
}

export interface TestWorker {
  /** The worker side's application context, e.g. for `app.get(CardIssuanceService)`. */
  app: INestApplicationContext;
  close(): Promise<void>;
}

/**
 * Closes the worker side's Bull queues together, as the shutdown's first application-shutdown hook (the
 * root module's; every beforeApplicationShutdown, the enqueue settling included, has run). Nest closes
 * them module by module, and Bull's close waits 500 ms for the blocking connection of a queue with a
 * processor (its QUIT queues behind a pending BRPOPLPUSH): about 1 s per worker, 0.5 s together. Each
 * queue's close is Bull's own, waiting for its running jobs; Nest's later close of the same queue returns
 * the same promise (docs/testing.md, "Where the time of a run goes").
 */
@Injectable()
class CloseQueuesTogether implements OnApplicationShutdown {
  constructor(private readonly moduleRef: ModuleRef) {}

  async onApplicationShutdown(): Promise<void> {
    const queues = [CARD_ISSUANCE_QUEUE, MAIL_QUEUE, WEBHOOK_DELIVERY_QUEUE].flatMap((name) => {
      try {
        return [this.moduleRef.get<{ close(): Promise<void> }>(getQueueToken(name), { strict: false })];
      } catch {
        return []; // not registered in this app
      }
    });
    await Promise.all(queues.map((queue) => queue.close()));
  }
}

/**
 * The worker side of `testApp`, composed as the worker process composes it (WorkerAppModule): queue
 * processors, the sweepers and expiry, the outbox relay and webhook deliveries, on the same
 * configuration, database and queue prefix (unless `queuePrefix` gives it queues of its own), with
 * the same provider overrides. Its sweeps and its relay read the whole database, which is the test
 * file's own (docs/testing.md, "A database per test file"): they see what this file wrote, and
 * nothing of another file.
 */
export async function startTestWorker(
  testApp: Pick<TestApp, 'config' | 'overrides'>,
  options: { queuePrefix?: string; overrides?: Override[] } = {},
): Promise<TestWorker> {
  const config = { ...testApp.config, queuePrefix: options.queuePrefix ?? testApp.config.queuePrefix };
  const builder = Test.createTestingModule({ imports: [WorkerAppModule.register(config)], providers: [CloseQueuesTogether] });
  for (const { provide, useValue } of options.overrides ?? testApp.overrides) builder.overrideProvider(provide).useValue(useValue);
  const app = await builder.compile();
  app.useLogger(app.get(Logger));
  await app.init();
  return { app, close: () => app.close() };
}

/**
 * A second database for the file, migrated (a copy of the run's template, as the file's own is), for a
 * file whose apps must not share one (e.g. one set of apps with a trigger that refuses every reward,
 * another without). Every e2e file already runs on a database of its own (docs/testing.md, "A database
 * per test file"). Dropped by the global teardown.
 */
export async function isolatedDatabase(): Promise<{ DATABASE_URL: string }> {
  return { DATABASE_URL: await fileDatabase.copyTemplate(expect.getState().testPath ?? 'isolated') };
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
