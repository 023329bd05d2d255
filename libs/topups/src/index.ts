export * from './topups.module';
export * from './entities/topup.entity';
