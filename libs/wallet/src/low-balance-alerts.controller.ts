import { Body, Controller, Get, Put } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuditOrigin, CurrentAuditOrigin } from '@app/audit';
import { CurrentPrincipal, Principal, RequireScope } from '@app/auth';
import { ApiBodyExamples, ApiErrorResponses } from '@app/core';
import { AlertSettingsResponseDto, UPDATE_ALERT_SETTINGS_EXAMPLES, UpdateAlertSettingsDto } from './dto/alert-settings.dto';
import { LowBalanceAlerts } from './low-balance-alerts.service';

@ApiTags('Account')
@Controller('v1/account/alert-settings')
export class AlertSettingsController {
  constructor(private readonly alerts: LowBalanceAlerts) {}

  @Get()
  @RequireScope('account:read')
  @ApiOperation({ operationId: 'getAlertSettings', summary: 'The low-balance alert thresholds, per currency' })
  async get(@CurrentPrincipal() principal: Principal): Promise<AlertSettingsResponseDto> {
    return { alertSettings: await this.alerts.get(principal.accountId) };
  }

  @Put()
  @RequireScope('account:write')
  @ApiOperation({
    operationId: 'updateAlertSettings',
    summary: 'Replace the low-balance alert thresholds',
    description:
      'When a wallet’s available balance falls below its currency’s threshold, the account’s owners and admins get an e-mail and ' +
      'webhook event `wallet.low_balance` is sent, at most once per 24 hours per wallet; the alert is armed again once the balance ' +
      'is back at or above the threshold. One entry per supported currency; a currency left out has no alert. ' +
      'Needs an API key with `write`; OAuth tokens cannot change it (403).',
  })
  @ApiBodyExamples(UpdateAlertSettingsDto, UPDATE_ALERT_SETTINGS_EXAMPLES)
  @ApiErrorResponses(400)
  async update(
    @CurrentPrincipal() principal: Principal,
    @CurrentAuditOrigin() origin: AuditOrigin,
    @Body() body: UpdateAlertSettingsDto,
  ): Promise<AlertSettingsResponseDto> {
    return { alertSettings: await this.alerts.replace(principal.accountId, body.alertSettings, origin) };
  }
}
