import { recipientTexts } from './recipient-language';

export interface RewardSmsInput {
  senderName: string;
  valueCents: number;
  currency: string;
  type: 'FIXED' | 'CHOICE';
  /** FIXED: the card's brand. */
  brandName: string | null;
  link: string;
  /** The recipient's language (docs/recipient-language.md); English when null. */
  language: string | null;
}

/**
 * The reward's text message (docs/delivery.md, SMS): one line with who sent what and the reward's
 * link, in the recipient's language. Plain text; the merchant's message is left to the e-mail.
 */
export function renderRewardSms(input: RewardSmsInput): string {
  const texts = recipientTexts(input.language);
  const fixed = input.type === 'FIXED' && input.brandName !== null;
  const params = { sender: input.senderName, value: texts.money(input.valueCents, input.currency), brand: input.brandName ?? '', link: input.link };
  return texts.t('sms', fixed ? 'fixed' : 'choice', params);
}
