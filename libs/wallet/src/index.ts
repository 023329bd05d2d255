// What other modules may use; the entities stay inside (docs/architecture.md, Table ownership).
export * from './wallet.module';
export * from './wallet-ledger.service';
export * from './currencies';
export * from './dto/wallet.dto';
export * from './wallet-worker.module';
export * from './dto/alert-settings.dto';
export * from './dto/statement.dto';
export { WalletStatements, formatAmount } from './statements/wallet-statements.service';
export * from './wallet-reports';
