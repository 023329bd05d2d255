import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditModule } from '@app/audit';
import { APP_CONFIG, AppConfig, RedisClient } from '@app/core';
import { CatalogRulesController } from './catalog-rules.controller';
import { CatalogRulesService } from './catalog-rules.service';
import { CatalogController } from './catalog.controller';
import { CatalogResponseCache } from './catalog-response-cache';
import { CatalogService } from './catalog.service';
import { CatalogSyncService } from './catalog-sync.service';
import { CatalogBrandEntity } from './entities/catalog-brand.entity';
import { CatalogItemEntity } from './entities/catalog-item.entity';
import { CatalogStateEntity } from './entities/catalog-state.entity';
import { SandboxRedisOrderBook } from './supplier/sandbox-redis-order-book';
import { SandboxSupplier, sandboxLatency } from './supplier/sandbox-supplier';
import { SupplierGate } from './supplier/supplier-gate';
import { GIFT_CARD_SUPPLIER, GiftCardSupplier } from './supplier/supplier.port';
import { TangoSupplier } from './supplier/tango/tango-supplier';

function supplierFor(config: AppConfig, redis: RedisClient): GiftCardSupplier {
  switch (config.supplier) {
    case 'sandbox':
      return new SandboxSupplier(
        sandboxLatency(config.sandboxSupplierLatencyMs, config.sandboxSupplierJitterMs),
        new SandboxRedisOrderBook(redis),
      );
    case 'tango':
      // config.tango is set whenever supplier is tango (loadConfig refuses to start otherwise).
      return new TangoSupplier({ ...config.tango!, timeoutMs: config.supplierTimeoutMs });
  }
}

/** The catalog API, our synced copy of the supplier catalog, and the supplier adapter. */
@Module({
  imports: [TypeOrmModule.forFeature([CatalogBrandEntity, CatalogItemEntity, CatalogStateEntity]), AuditModule],
  controllers: [CatalogController, CatalogRulesController],
  providers: [
    CatalogService,
    CatalogRulesService,
    CatalogSyncService,
    CatalogResponseCache,
    { provide: GIFT_CARD_SUPPLIER, inject: [APP_CONFIG, RedisClient], useFactory: supplierFor },
    SupplierGate,
  ],
  exports: [CatalogService, CatalogRulesService, CatalogSyncService, GIFT_CARD_SUPPLIER, SupplierGate],
})
export class CatalogModule {}
