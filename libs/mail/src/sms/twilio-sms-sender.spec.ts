import { twilioRefusal } from './twilio-sms-sender';

describe('twilioRefusal: what an error answer of Twilio means for the text (docs/delivery.md, SMS)', () => {
  const body = (code: number, message: string) => JSON.stringify({ code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status: 400 });

  it('a refusal of the number (21211 invalid To, 21610 unsubscribed) is permanent, with status, code and message as the reason', () => {
    expect(twilioRefusal(400, body(21211, "The 'To' number +1555 is not a valid phone number."))).toMatchObject({
      permanent: true,
      reason: "Twilio 400 21211 The 'To' number +1555 is not a valid phone number.",
    });
    expect(twilioRefusal(400, body(21610, 'Attempt to send to unsubscribed recipient')).permanent).toBe(true);
  });

  it('429, 5xx and our own credentials (401, 403) are temporary', () => {
    for (const status of [429, 500, 502, 503, 401, 403]) expect(twilioRefusal(status, body(20000 + status, 'x')).permanent).toBe(false);
  });

  it('an answer that is not JSON keeps the status alone, and the reason is at most 200 characters', () => {
    expect(twilioRefusal(502, '<html>Bad gateway</html>')).toMatchObject({ permanent: false, reason: 'Twilio 502' });
    expect(twilioRefusal(400, body(21211, 'x'.repeat(500))).reason).toHaveLength(200);
  });
});
