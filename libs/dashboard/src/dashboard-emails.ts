import { html, joinHtml } from '@app/core';
import type { OutgoingMail } from '@app/mail';

function mail(input: { to: string; subject: string; lines: string[]; link: string; action: string; reference: string }): OutgoingMail {
  const markup = joinHtml(
    [
      html`<!doctype html><html><body style="font-family:sans-serif">`,
      ...input.lines.map((line) => html`<p>${line}</p>`),
      html`<p><a href="${input.link}">${input.action}</a></p>`,
      html`</body></html>`,
    ],
    '\n',
  );
  return {
    fromName: 'Rewards',
    to: input.to,
    subject: input.subject,
    html: markup.toString(),
    text: [...input.lines, '', `${input.action}: ${input.link}`, ''].join('\n'),
    reference: input.reference,
  };
}

export function invitationEmail(input: { to: string; accountName: string; role: string; invitedBy: string; link: string; invitationId: string }): OutgoingMail {
  return mail({
    to: input.to,
    subject: `${input.invitedBy} invited you to ${input.accountName}`,
    lines: [
      `${input.invitedBy} invited you to join ${input.accountName} as ${input.role}.`,
      'The link works once and for 7 days. If you did not expect this, ignore this e-mail.',
    ],
    link: input.link,
    action: 'Accept the invitation',
    reference: input.invitationId,
  });
}

export function passwordResetEmail(input: { to: string; link: string; resetId: string }): OutgoingMail {
  return mail({
    to: input.to,
    subject: 'Reset your password',
    lines: [
      'Someone asked to reset the password of your account. The link works once and for 30 minutes.',
      'If it was not you, ignore this e-mail: your password stays as it is.',
    ],
    link: input.link,
    action: 'Choose a new password',
    reference: input.resetId,
  });
}
