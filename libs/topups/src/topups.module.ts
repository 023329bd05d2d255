import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditModule } from '@app/audit';
import { WalletModule } from '@app/wallet';
import { TopupEntity } from './entities/topup.entity';
import { StripeCheckout } from './payments/stripe-checkout';
import { StripeWebhookController } from './stripe-webhook.controller';
import { TopupsController } from './topups.controller';
import { TopupsService } from './topups.service';

@Module({
  imports: [TypeOrmModule.forFeature([TopupEntity]), WalletModule, AuditModule],
  controllers: [TopupsController, StripeWebhookController],
  providers: [TopupsService, StripeCheckout],
})
export class TopupsModule {}
