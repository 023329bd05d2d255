import { Controller, Get } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { AccountOverviewDto } from '@app/account';
import { CurrentPrincipal, Principal, RequireScope } from '@app/auth';
import { RewardsService } from '@app/rewards';
import { toWalletDto, WalletLedger } from '@app/wallet';

/**
 * GET /v1/account/overview reads several domains (wallet, rewards), so it lives above them
 * instead of making the account module depend on its dependants.
 */
@ApiTags('Account')
@Controller('v1/account')
export class AccountOverviewController {
  constructor(
    private readonly ledger: WalletLedger,
    private readonly rewards: RewardsService,
  ) {}

  @Get('overview')
  @RequireScope('account:read')
  @ApiOperation({ operationId: 'getAccountOverview', summary: 'Wallet balances and reward statistics' })
  async overview(@CurrentPrincipal() principal: Principal): Promise<AccountOverviewDto> {
    const [wallet, stats] = await Promise.all([
      this.ledger.getWallet(principal.accountId),
      this.rewards.stats(principal.accountId),
    ]);
    return { wallet: toWalletDto(wallet), stats };
  }
}
