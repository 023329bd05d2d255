import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsDefined, IsInt, IsObject, Max, Min, ValidateIf, ValidateNested } from 'class-validator';
import { RequestExamples } from '@app/core';

/** The account's reward reminders (docs/delivery.md, Reminders). */
export class ReminderSettingsDto {
  /**
   * Reminder e-mails this many days after a reward's delivery, while it has value left: 0 to 3
   * values, each 1 to 90, in ascending order. `[]`: none.
   */
  @ApiProperty({ type: 'array', items: { type: 'integer', minimum: 1, maximum: 90 }, maxItems: 3, example: [3, 10] })
  @IsDefined()
  @IsArray()
  @ArrayMaxSize(3)
  @IsInt({ each: true })
  @Min(1, { each: true })
  @Max(90, { each: true })
  afterDays: number[];

  /** A reminder e-mail this many days before a reward's `expiresAt` (1 to 30), while it has value left. `null`: none. */
  @ApiProperty({ type: 'integer', minimum: 1, maximum: 30, nullable: true, example: 3 })
  @ValidateIf((_, value) => value !== null)
  @IsDefined()
  @IsInt()
  @Min(1)
  @Max(30)
  beforeExpiryDays: number | null;
}

/** The whole settings: both fields are required. */
export class UpdateReminderSettingsDto {
  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => ReminderSettingsDto)
  reminderSettings: ReminderSettingsDto;
}

export class ReminderSettingsResponseDto {
  reminderSettings: ReminderSettingsDto;
}

/** Request examples of PUT /v1/account/reminder-settings (docs/api-contract.md, Examples). */
export const UPDATE_REMINDER_SETTINGS_EXAMPLES: RequestExamples<UpdateReminderSettingsDto> = {
  reminders: {
    summary: 'Remind 3 and 10 days after delivery, and 2 days before expiry',
    value: { reminderSettings: { afterDays: [3, 10], beforeExpiryDays: 2 } },
  },
  none: { summary: 'No reminders', value: { reminderSettings: { afterDays: [], beforeExpiryDays: null } } },
};
