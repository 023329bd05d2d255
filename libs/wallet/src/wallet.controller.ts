import { Controller, Get, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, Principal, RequireScope } from '@app/auth';
import { ApiErrorResponses, Clock, dateRange } from '@app/core';
import { Currencies } from './currencies';
import {
  toWalletDto,
  toWalletTransactionDto,
  WalletListDto,
  WalletResponseDto,
  WalletTransactionListDto,
  WalletTransactionsQueryDto,
} from './dto/wallet.dto';
import { WalletLedger } from './wallet-ledger.service';
import { walletTransactionFilterOf } from './wallet-reports';

@ApiTags('Wallet')
@Controller('v1/wallet')
export class WalletController {
  constructor(
    private readonly ledger: WalletLedger,
    private readonly currencies: Currencies,
    private readonly clock: Clock,
  ) {}

  @Get()
  @RequireScope('wallet:read')
  @ApiOperation({ operationId: 'getWallet', summary: 'The primary wallet', description: 'The wallet of the account’s own currency; `GET /v1/wallets` lists every wallet.' })
  async get(@CurrentPrincipal() principal: Principal): Promise<WalletResponseDto> {
    return { wallet: toWalletDto(await this.ledger.getWallet(principal.accountId)) };
  }

  @Get('transactions')
  @RequireScope('wallet:read')
  @ApiOperation({
    operationId: 'listWalletTransactions',
    summary: 'Every balance change, newest first',
    description:
      'Of every wallet, or of one with `currency`; also filtered by `kind`, `related_id` and a creation range (`created_gte` / ' +
      '`created_lt`, at most 366 days). Page through with `page`, or walk with `starting_after` / `ending_before` (an id seen) and `hasMore`.',
  })
  @ApiErrorResponses(400)
  async transactions(
    @CurrentPrincipal() principal: Principal,
    @Query() query: WalletTransactionsQueryDto,
  ): Promise<WalletTransactionListDto> {
    if (query.currency !== undefined) await this.currencies.check(principal.accountId, query.currency, 'currency');
    const window = { page: query.page, pageSize: query.page_size, startingAfter: query.starting_after, endingBefore: query.ending_before };
    const created = dateRange({ gte: query.created_gte, lt: query.created_lt }, this.clock.now());
    const filter = walletTransactionFilterOf(query, created);
    const { items, total, hasMore } = await this.ledger.listTransactions(principal.accountId, window, filter);
    return { transactions: items.map(toWalletTransactionDto), total, hasMore };
  }
}

@ApiTags('Wallet')
@Controller('v1/wallets')
export class WalletsController {
  constructor(private readonly ledger: WalletLedger) {}

  @Get()
  @RequireScope('wallet:read')
  @ApiOperation({
    operationId: 'listWallets',
    summary: 'Every wallet, one per currency',
    description: 'The primary wallet first (even when empty), then the others by currency code; a wallet opens with its first top-up or conversion.',
  })
  async list(@CurrentPrincipal() principal: Principal): Promise<WalletListDto> {
    return { wallets: (await this.ledger.listWallets(principal.accountId)).map(toWalletDto) };
  }
}
