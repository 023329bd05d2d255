import { Controller, Get, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, Principal, RequireScope } from '@app/auth';
import { ApiErrorResponses } from '@app/core';
import {
  toWalletDto,
  toWalletTransactionDto,
  WalletResponseDto,
  WalletTransactionListDto,
  WalletTransactionsQueryDto,
} from './dto/wallet.dto';
import { WalletLedger } from './wallet-ledger.service';

@ApiTags('Wallet')
@Controller('v1/wallet')
export class WalletController {
  constructor(private readonly ledger: WalletLedger) {}

  @Get()
  @RequireScope('wallet:read')
  @ApiOperation({ operationId: 'getWallet', summary: 'The wallet balance' })
  async get(@CurrentPrincipal() principal: Principal): Promise<WalletResponseDto> {
    return { wallet: toWalletDto(await this.ledger.getWallet(principal.accountId)) };
  }

  @Get('transactions')
  @RequireScope('wallet:read')
  @ApiOperation({
    operationId: 'listWalletTransactions',
    summary: 'Every balance change, newest first',
    description: 'Page through with `page`, or walk with `starting_after` / `ending_before` (an id seen) and `hasMore`.',
  })
  @ApiErrorResponses(400)
  async transactions(
    @CurrentPrincipal() principal: Principal,
    @Query() query: WalletTransactionsQueryDto,
  ): Promise<WalletTransactionListDto> {
    const window = { page: query.page, pageSize: query.page_size, startingAfter: query.starting_after, endingBefore: query.ending_before };
    const { items, total, hasMore } = await this.ledger.listTransactions(principal.accountId, window);
    return { transactions: items.map(toWalletTransactionDto), total, hasMore };
  }
}
