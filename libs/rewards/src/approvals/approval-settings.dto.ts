import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsDefined, IsInt, IsObject, Max, Min, ValidateIf, ValidateNested } from 'class-validator';
import { RequestExamples } from '@app/core';
import { RewardCreatorDto, RewardDto } from '../dto/reward.dto';

/** The approval rule (docs/controls.md, Approvals). */
export class ApprovalSettingsDto {
  /**
   * Sends worth this much or more, in the account's primary currency's minor units (1 to
   * 100,000,000; rewards in other currencies at the current mid rate), wait for an admin's or
   * owner's approval. `null`: no send needs approval.
   */
  @ApiProperty({ type: 'integer', minimum: 1, maximum: 100_000_000, nullable: true, example: 50_000 })
  @ValidateIf((_, value) => value !== null)
  @IsDefined()
  @IsInt()
  @Min(1)
  @Max(100_000_000)
  thresholdCents: number | null;
}

export class UpdateApprovalSettingsDto {
  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => ApprovalSettingsDto)
  approvalSettings: ApprovalSettingsDto;
}

export class ApprovalSettingsResponseDto {
  approvalSettings: ApprovalSettingsDto;
}

/** Request examples of PUT /v1/account/approval-settings (docs/api-contract.md, Examples). */
export const UPDATE_APPROVAL_SETTINGS_EXAMPLES: RequestExamples<UpdateApprovalSettingsDto> = {
  threshold: { summary: 'Sends of $500 or more need approval', value: { approvalSettings: { thresholdCents: 50_000 } } },
  none: { summary: 'No send needs approval', value: { approvalSettings: { thresholdCents: null } } },
};

export class PendingApprovalDto {
  reward: RewardDto;

  /** Null for a reward sent before senders were recorded. */
  @ApiProperty({ type: RewardCreatorDto, nullable: true })
  createdBy: RewardCreatorDto | null;
}

/** The sends waiting for a decision, oldest first. */
export class PendingApprovalListDto {
  approvals: PendingApprovalDto[];
}
