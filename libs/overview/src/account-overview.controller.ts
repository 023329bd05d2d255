import { Controller, Get } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { AccountOverviewDto } from '@app/account';
import { CurrentPrincipal, Principal, RequireScope } from '@app/auth';
import { toWalletDto, WalletLedger } from '@app/wallet';

/**
 * GET /v1/account/overview reads several domains (wallet now, rewards later), so it lives above
 * them instead of making the account module depend on its dependants.
 */
@ApiTags('Account')
@Controller('v1/account')
export class AccountOverviewController {
  constructor(private readonly ledger: WalletLedger) {}

  @Get('overview')
  @RequireScope('account:read')
  @ApiOperation({ operationId: 'getAccountOverview', summary: 'Wallet balances and reward statistics' })
  async overview(@CurrentPrincipal() principal: Principal): Promise<AccountOverviewDto> {
    const wallet = await this.ledger.getWallet(principal.accountId);
    return {
      wallet: toWalletDto(wallet),
      // No rewards exist until the rewards module lands; it will compute these from its table.
      stats: { totalRewards: 0, activeRewards: 0, redeemedRewards: 0, totalIssuedCents: 0 },
    };
  }
}
