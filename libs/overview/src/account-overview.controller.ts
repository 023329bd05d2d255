import { Controller, Get, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { DataSource } from 'typeorm';
import { CurrentPrincipal, Principal, RequireScope } from '@app/auth';
import { ApiErrorResponses, Clock, readListTotals } from '@app/core';
import { RewardsService } from '@app/rewards';
import { toWalletDto, WalletLedger } from '@app/wallet';
import { AccountOverviewDto, DailyOverviewDto, DailyOverviewQueryDto } from './dto/overview.dto';

/**
 * GET /v1/account/overview reads several domains (wallet, rewards), so it lives above them
 * instead of making the account module depend on its dependants.
 */
@ApiTags('Account')
@Controller('v1/account')
export class AccountOverviewController {
  constructor(
    private readonly dataSource: DataSource,
    private readonly ledger: WalletLedger,
    private readonly rewards: RewardsService,
    private readonly clock: Clock,
  ) {}

  @Get('overview/daily')
  @RequireScope('account:read')
  @ApiOperation({
    operationId: 'getAccountOverviewDaily',
    summary: 'Value sent per day',
    description:
      'The face value of the rewards sent on each UTC day of the last 30 or 90 days (today included), per currency, from kept ' +
      'per-day sums: the same cost at any volume. What the dashboard Overview charts.',
  })
  @ApiErrorResponses(400)
  async daily(@CurrentPrincipal() principal: Principal, @Query() query: DailyOverviewQueryDto): Promise<DailyOverviewDto> {
    const wallets = await this.ledger.listWallets(principal.accountId);
    const series = await this.rewards.sentPerDay(principal.accountId, wallets.map((wallet) => wallet.currency), query.days, this.clock.now());
    return { days: query.days, series };
  }

  @Get('overview')
  @RequireScope('account:read')
  @ApiOperation({ operationId: 'getAccountOverview', summary: 'Wallet balances and reward statistics' })
  async overview(@CurrentPrincipal() principal: Principal): Promise<AccountOverviewDto> {
    const { accountId } = principal;
    const [wallets, stats] = await Promise.all([this.ledger.listWallets(accountId), this.rewards.stats(accountId)]);
    // Per currency from the kept counts (docs/currencies.md, Overview): the same cost at any volume.
    const lists = wallets.flatMap(({ currency }) => [`issued_cents:${currency}`, `active_cents:${currency}`]);
    const totals = await readListTotals(this.dataSource.manager, accountId, lists);
    const statsByCurrency = wallets.map(({ currency }) => ({
      currency,
      totalIssuedCents: totals[`issued_cents:${currency}`],
      activeValueCents: totals[`active_cents:${currency}`],
    }));
    // The primary wallet is listed first, always.
    return {
      wallet: toWalletDto(wallets[0]),
      stats: { ...stats, totalIssuedCents: statsByCurrency[0].totalIssuedCents },
      wallets: wallets.map(toWalletDto),
      statsByCurrency,
    };
  }
}
