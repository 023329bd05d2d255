import type { DynamicModule, INestApplicationContext, Type } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { AppConfig, InfrastructureModule, loadConfig, randomToken } from '@app/core';
import { preparePooledDatabase, throughRunPooler } from './pooler';

type Override = { provide: unknown; useValue: unknown };

export interface ServiceContext {
  /** The Nest application context: `ctx.app.get(RewardLifecycleService)`. */
  app: INestApplicationContext;
  config: AppConfig;
  close(): Promise<void>;
}

/**
 * The service-test layer (docs/testing.md, "Service tests"): one lib's module on the real
 * infrastructure (PostgreSQL, Redis, the key ring, the clock) and nothing else: no HTTP, no
 * controllers of other libs, no background work unless the module itself schedules it. For tests of
 * a repository or a service's rules, where booting the HTTP app and signing in would only add time.
 * `overrides` replaces providers as in startTestApp (e.g. `clockOverride(clock)`).
 */
export async function startServiceContext(
  imports: Array<Type<unknown> | DynamicModule>,
  options: { env?: Record<string, string>; overrides?: Override[]; init?: boolean } = {},
): Promise<ServiceContext> {
  const config = loadConfig(throughRunPooler({ ...process.env, QUEUE_PREFIX: `${process.env.QUEUE_PREFIX}-${randomToken(4)}`, ...options.env }));
  await preparePooledDatabase(config);
  const builder = Test.createTestingModule({ imports: [InfrastructureModule.forRoot(config), ...imports] });
  for (const { provide, useValue } of options.overrides ?? []) builder.overrideProvider(provide).useValue(useValue);
  const app = await builder.compile();
  // `init: false`: the providers only, none of their start hooks (no queue processor, sweep or heartbeat runs).
  if (options.init !== false) await app.init();
  return { app, config, close: () => app.close() };
}
