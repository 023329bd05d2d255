import { Body, Controller, Get, Patch } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuditOrigin, CurrentAuditOrigin } from '@app/audit';
import { CurrentPrincipal, Principal, RequireScope } from '@app/auth';
import { ApiBodyExamples, ApiErrorResponses } from '@app/core';
import { AccountService } from './account.service';
import { AccountResponseDto, toAccountDto, UPDATE_BRANDING_EXAMPLES, UpdateBrandingDto } from './dto/account.dto';

@ApiTags('Account')
@Controller('v1/account')
export class AccountController {
  constructor(private readonly accounts: AccountService) {}

  @Get()
  @RequireScope('account:read')
  @ApiOperation({ operationId: 'getAccount', summary: 'The account the credential acts for' })
  async get(@CurrentPrincipal() principal: Principal): Promise<AccountResponseDto> {
    return { account: toAccountDto(await this.accounts.get(principal.accountId)) };
  }

  @Patch('branding')
  @RequireScope('account:write')
  @ApiOperation({
    operationId: 'updateBranding',
    summary: 'Update the sender name, logo and brand colour of e-mails and the redemption page',
    description: 'Needs an API key with `write`; OAuth tokens cannot change branding (403).',
  })
  @ApiBodyExamples(UpdateBrandingDto, UPDATE_BRANDING_EXAMPLES)
  @ApiErrorResponses(400)
  async updateBranding(
    @CurrentPrincipal() principal: Principal,
    @CurrentAuditOrigin() origin: AuditOrigin,
    @Body() body: UpdateBrandingDto,
  ): Promise<AccountResponseDto> {
    return { account: toAccountDto(await this.accounts.updateBranding(principal.accountId, body, origin)) };
  }
}
