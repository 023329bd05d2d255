import { ApiProperty } from '@nestjs/swagger';
import { IsInt, IsString, Length, Max, Min } from 'class-validator';
import { NoControlCharacters } from '@app/core';
import type { IssuedCardDto } from '@app/rewards';

/** `POST /r/{token}/api/cards`: one card of `utid` for `amountCents` of the reward's value. */
export class PickCardDto {
  @IsString()
  @Length(1, 100)
  @NoControlCharacters()
  utid: string;

  @IsInt()
  @Min(1)
  @Max(100_000_000)
  @ApiProperty({ type: 'integer' })
  amountCents: number;
}

/** What the recipient may see of a reward: no e-mail address, no merchant references. */
export interface RedemptionRewardView {
  type: 'FIXED' | 'CHOICE';
  status: string;
  faceValueCents: number;
  remainingValueCents: number;
  currency: string;
  recipientFirstName: string;
  /** The language the sender chose for the recipient, or null (the page then follows the browser). */
  language: string | null;
  message: string | null;
  senderName: string;
  logoUrl: string | null;
  brandColor: string | null;
  expiresAt: string | null;
  /** FIXED: the card's brand. */
  brandName: string | null;
  brandImageUrl: string | null;
  /** True while the recipient can still pick cards (CHOICE, open, value left, not past expiry). */
  canPick: boolean;
  /**
   * Present while the reward has not reached its recipient: a scheduled send's delivery time
   * (docs/delivery.md), or null while it waits for a merchant's approval (docs/controls.md): no date is known.
   */
  availableAt?: string | null;
}

export interface PickableItemView {
  utid: string;
  rewardName: string;
  valueType: 'FIXED_VALUE' | 'VARIABLE_VALUE';
  /** FIXED_VALUE: the one amount; null for VARIABLE_VALUE. */
  faceValueCents: number | null;
  /** VARIABLE_VALUE: the range; null for FIXED_VALUE. */
  minValueCents: number | null;
  maxValueCents: number | null;
}

export interface PickableBrandView {
  brandKey: string;
  name: string;
  imageUrl: string | null;
  items: PickableItemView[];
}

/** `GET /r/{token}/api` (docs/redemption.md, The JSON API). */
export interface RedemptionStateView {
  reward: RedemptionRewardView;
  /** Cards of this reward, newest last, with full credentials once issued. */
  cards: IssuedCardDto[];
  /** CHOICE while picks are accepted: the brands and items in the reward currency the recipient may pick. */
  brands: PickableBrandView[];
}
