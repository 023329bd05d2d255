// What other modules may use; the entities stay inside (docs/architecture.md, Table ownership).
export * from './catalog.module';
export * from './catalog-worker.module';
export * from './catalog.service';
export * from './catalog-rules';
export * from './catalog-rules.service';
export * from './catalog-sync.service';
export * from './supplier/supplier.port';
export * from './supplier/tango/tango-supplier';
export * from './supplier/supplier-gate';
export { SandboxRedisOrderBook } from './supplier/sandbox-redis-order-book';
