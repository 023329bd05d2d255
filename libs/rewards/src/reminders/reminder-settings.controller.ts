import { Body, Controller, Get, Put } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuditOrigin, CurrentAuditOrigin } from '@app/audit';
import { CurrentPrincipal, Principal, RequireScope } from '@app/auth';
import { ApiBodyExamples, ApiErrorResponses, BadRequestError } from '@app/core';
import { ReminderSettingsResponseDto, UPDATE_REMINDER_SETTINGS_EXAMPLES, UpdateReminderSettingsDto } from './reminder-settings.dto';
import { RewardReminders } from './reward-reminders.service';

@ApiTags('Account')
@Controller('v1/account/reminder-settings')
export class ReminderSettingsController {
  constructor(private readonly reminders: RewardReminders) {}

  @Get()
  @RequireScope('account:read')
  @ApiOperation({ operationId: 'getReminderSettings', summary: 'When reward reminder e-mails are sent' })
  async get(@CurrentPrincipal() principal: Principal): Promise<ReminderSettingsResponseDto> {
    return { reminderSettings: await this.reminders.settings(principal.accountId) };
  }

  @Put()
  @RequireScope('account:write')
  @ApiOperation({
    operationId: 'updateReminderSettings',
    summary: 'Replace the reward reminder settings',
    description:
      'A reward with value left whose status is `SENT`, `OPENED` or `PARTIALLY_REDEEMED` gets a reminder e-mail (its one link, the ' +
      'account’s branding, a subject saying it is a reminder, in the recipient’s language) each `afterDays` days after its delivery ' +
      'and `beforeExpiryDays` days before its `expiresAt`, each once, never once it is redeemed, cancelled or expired. Each adds ' +
      'timeline and webhook event `reward.reminded`. A send with `reminders: false` gets none. Reminders that fell due before the ' +
      'change are not sent. Needs an API key with `write`; OAuth tokens cannot change it (403).',
  })
  @ApiBodyExamples(UpdateReminderSettingsDto, UPDATE_REMINDER_SETTINGS_EXAMPLES)
  @ApiErrorResponses(400)
  async update(
    @CurrentPrincipal() principal: Principal,
    @CurrentAuditOrigin() origin: AuditOrigin,
    @Body() body: UpdateReminderSettingsDto,
  ): Promise<ReminderSettingsResponseDto> {
    const { afterDays, beforeExpiryDays } = body.reminderSettings;
    const unordered = afterDays.findIndex((days, index) => index > 0 && days <= afterDays[index - 1]);
    if (unordered > 0) {
      throw new BadRequestError([
        { path: `reminderSettings.afterDays.${unordered}`, message: 'afterDays must be in ascending order, each value once (e.g. [3, 10])' },
      ]);
    }
    return { reminderSettings: await this.reminders.replaceSettings(principal.accountId, { afterDays, beforeExpiryDays }, origin) };
  }
}
