import { html } from '@app/core';
import { recipientTexts } from './recipient-language';

export interface RewardEmailInput {
  senderName: string;
  logoUrl: string | null;
  brandColor: string | null;
  recipientFirstName: string;
  message: string | null;
  valueCents: number;
  currency: string;
  type: 'FIXED' | 'CHOICE';
  /** FIXED: the card's brand. */
  brandName: string | null;
  link: string;
  expiresAt: Date | null;
  /** The recipient's language (docs/recipient-language.md); English when null. */
  language: string | null;
  /** A reminder of a reward not used up (docs/delivery.md, Reminders): its subject says so, and a line above the rest. */
  reminder?: boolean;
}

const DEFAULT_COLOR = '#1A73E8';

/** Readable text on the brand colour: dark text on light colours, white on dark ones. */
function textOn(color: string): string {
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(color.slice(i, i + 2), 16) / 255);
  const luminance = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  return luminance > 0.6 ? '#111111' : '#FFFFFF';
}

/**
 * The recipient's e-mail in HTML (table layout and inline styles, which mail clients render) and
 * plain text, in the recipient's language (docs/recipient-language.md): its texts, its money and date
 * formats. The merchant's message is shown as written. Every merchant-supplied value is escaped by
 * `html` (docs/html-templates.md).
 */
export function renderRewardEmail(input: RewardEmailInput): { subject: string; html: string; text: string; language: string } {
  const texts = recipientTexts(input.language);
  const value = texts.money(input.valueCents, input.currency);
  const color = input.brandColor ?? DEFAULT_COLOR;
  const fixed = input.type === 'FIXED' && input.brandName !== null;
  const params = { sender: input.senderName, value, brand: input.brandName ?? '' };
  const subject = input.reminder
    ? texts.t('email', fixed ? 'reminderSubjectFixed' : 'reminderSubjectChoice', params)
    : texts.t('email', fixed ? 'subjectFixed' : 'subjectChoice', params);
  const intro = input.reminder ? texts.t('email', 'reminderIntro') : '';
  const sent = texts.t('email', fixed ? 'sentFixed' : 'sentChoice', params);
  const greeting = texts.t('email', 'greeting', { name: input.recipientFirstName });
  const action = texts.t('email', input.type === 'FIXED' ? 'actionFixed' : 'actionChoice');
  const expiry = input.expiresAt ? texts.t('email', 'useBy', { date: texts.instant(input.expiresAt) }) : '';
  const keepPrivate = texts.t('email', 'keepPrivate');

  const text = [
    greeting,
    '',
    ...(intro ? [intro, ''] : []),
    sent,
    ...(input.message ? ['', input.message] : []),
    '',
    texts.t('email', 'actionLine', { action, link: input.link }),
    ...(expiry ? ['', expiry] : []),
    '',
    keepPrivate,
  ].join('\n');

  const markup = html`<!doctype html>
<html lang="${texts.language}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${subject}</title></head>
<body style="margin:0;padding:0;background:#f4f5f7;font-family:Helvetica,Arial,sans-serif;color:#111111">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="background:#f4f5f7;padding:24px 0"><tr><td align="center">
<table role="presentation" width="560" cellpadding="0" cellspacing="0" style="max-width:560px;width:100%;background:#ffffff;border-radius:8px;overflow:hidden">
<tr><td style="background:${color};padding:20px 24px;color:${textOn(color)};font-size:18px;font-weight:bold">
${input.logoUrl ? html`<img src="${input.logoUrl}" alt="" height="40" style="display:block;height:40px;margin-bottom:8px;border:0">` : ''}
${input.senderName}</td></tr>
<tr><td style="padding:24px">
<p style="font-size:16px;margin:0 0 16px">${greeting}</p>
${intro ? html`<p style="font-size:16px;margin:0 0 16px;font-weight:bold">${intro}</p>` : ''}
<p style="font-size:16px;margin:0 0 16px">${sent}</p>
${input.message ? html`<blockquote style="margin:0 0 16px;padding:12px 16px;border-left:4px solid ${color};background:#f8f9fb;font-size:15px;white-space:pre-line">${input.message}</blockquote>` : ''}
<p style="font-size:28px;font-weight:bold;margin:8px 0 24px">${value}</p>
<table role="presentation" cellpadding="0" cellspacing="0"><tr><td style="border-radius:6px;background:${color}">
<a href="${input.link}" style="display:inline-block;padding:14px 24px;color:${textOn(color)};text-decoration:none;font-weight:bold;font-size:16px">${action}</a>
</td></tr></table>
${expiry ? html`<p style="font-size:14px;color:#555555;margin:16px 0 0">${expiry}</p>` : ''}
<p style="font-size:12px;color:#777777;margin:24px 0 0">${keepPrivate}<br>${texts.html('email', 'buttonFallback', {
    link: html`<a href="${input.link}" style="color:#555555;word-break:break-all">${input.link}</a>`,
  })}</p>
</td></tr></table>
</td></tr></table>
</body></html>`;
  return { subject, html: markup.toString(), text, language: texts.language };
}
