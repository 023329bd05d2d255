import { Module } from '@nestjs/common';
import { AccountModule } from '@app/account';
import { SweepersModule } from '@app/core';
import { MailModule } from '@app/mail';
import { LowBalanceMailSweep } from './low-balance-mail.sweep';

/** The e-mails of low-balance alerts (docs/alerts.md); imported by the worker side only (apps/worker WorkerModule). */
@Module({
  imports: [AccountModule, MailModule, SweepersModule],
  providers: [LowBalanceMailSweep],
})
export class WalletWorkerModule {}
