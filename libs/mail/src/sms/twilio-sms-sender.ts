import type { TwilioConfig } from '@app/core';
import { OutgoingSms, SmsRefusal, SmsSender } from './sms-sender';

/** How long one call to Twilio may take before it counts as no answer (temporary). */
const TWILIO_TIMEOUT_MS = 10_000;

/**
 * SMS_PROVIDER=twilio: one `POST {TWILIO_BASE_URL}/2010-04-01/Accounts/{sid}/Messages.json` per text,
 * form-encoded `To`, `From`, `Body`, with HTTP Basic auth (account SID and auth token). A 2xx means
 * Twilio took the message. Its error answers carry a JSON body with a numeric `code` and a
 * `message`; how each is read is in docs/delivery.md, SMS. The auth token is never logged.
 */
export class TwilioSmsSender extends SmsSender {
  private readonly url: string;
  private readonly authorization: string;

  constructor(private readonly config: TwilioConfig) {
    super();
    this.url = `${config.baseUrl}/2010-04-01/Accounts/${encodeURIComponent(config.accountSid)}/Messages.json`;
    this.authorization = `Basic ${Buffer.from(`${config.accountSid}:${config.authToken}`).toString('base64')}`;
  }

  async send(sms: OutgoingSms): Promise<void> {
    let response: Response;
    let text: string;
    try {
      response = await fetch(this.url, {
        method: 'POST',
        headers: { authorization: this.authorization, accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ To: sms.to, From: this.config.from, Body: sms.body }).toString(),
        signal: AbortSignal.timeout(TWILIO_TIMEOUT_MS),
      });
      text = await response.text();
    } catch (error) {
      const name = (error as { name?: string } | null)?.name;
      const what = name === 'TimeoutError' ? `no answer within ${TWILIO_TIMEOUT_MS} ms` : String((error as Error)?.message ?? error);
      throw new SmsRefusal(`Twilio: ${what}`.slice(0, 200), false);
    }
    if (response.ok) return;
    throw twilioRefusal(response.status, text);
  }
}

/**
 * What Twilio's error answer means for the text: 429 (too many requests) and 5xx are Twilio's own
 * trouble, tried again; 401 and 403 are our account's (its SID, token or permissions), not the
 * number's, so they are tried again too until the attempts run out; any other 4xx (e.g. 21211, the
 * `To` number is invalid; 21610, the recipient unsubscribed) refuses this text for good.
 */
export function twilioRefusal(status: number, body: string): SmsRefusal {
  let code: unknown;
  let message: unknown;
  try {
    ({ code, message } = JSON.parse(body) as { code?: unknown; message?: unknown });
  } catch {
    // Not JSON (a proxy's page): the status alone says what it is.
  }
  const detail = [typeof code === 'number' || typeof code === 'string' ? String(code) : null, typeof message === 'string' ? message : null]
    .filter(Boolean)
    .join(' ');
  const reason = `Twilio ${status}${detail ? ` ${detail}` : ''}`.replace(/\s+/g, ' ').slice(0, 200);
  const temporary = status === 429 || status >= 500 || status === 401 || status === 403 || status < 400;
  return new SmsRefusal(reason, !temporary);
}
