import { Global, Module } from '@nestjs/common';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/app-config';
import { IdempotencyStore } from '../idempotency/idempotency';
import { developmentKeyRing } from './development-keys';
import { KeyRing } from './key-ring';

/** The key ring (ENCRYPTION_KEYS, or the development key file) and what seals with it. */
@Global()
@Module({
  providers: [
    {
      provide: KeyRing,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => KeyRing.fromText(config.encryptionKeys ?? developmentKeyRing()),
    },
    IdempotencyStore,
  ],
  exports: [KeyRing, IdempotencyStore],
})
export class CryptoModule {}
