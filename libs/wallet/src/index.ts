export * from './wallet.module';
export * from './wallet-ledger.service';
export * from './entities/wallet.entity';
export * from './entities/wallet-transaction.entity';
export * from './dto/wallet.dto';
