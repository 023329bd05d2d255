export * from './catalog.module';
export * from './catalog-worker.module';
export * from './catalog.service';
export * from './catalog-sync.service';
export * from './entities/catalog-brand.entity';
export * from './entities/catalog-item.entity';
export * from './supplier/supplier.port';
