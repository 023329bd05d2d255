import type { Browser } from 'playwright-core';
import { artifact, DESKTOP, expectAccessible, expectNoSidewaysScroll, launchChromium, PHONE, signInToDashboard } from '../support/browser';
import { addMember, MEMBER_PASSWORD } from '../support/dashboard';
import { eventually } from '../support/processes';
import { choiceReward, fund, recipient } from '../support/rewards';
import { SeededMerchant, seedMerchant, startTestApp, startTestWorker, TestApp, TestWorker } from '../support/test-app';
import { TwilioDouble } from '../support/twilio-double';

describe('dashboard: the text message (SMS) on the Send page and the reward, in a real browser (Debian chromium)', () => {
  const twilio = new TwilioDouble();
  let t: TestApp;
  let worker: TestWorker;
  let m: SeededMerchant;
  let browser: Browser;

  beforeAll(async () => {
    t = await startTestApp({
      env: {
        SMS_PROVIDER: 'twilio',
        TWILIO_BASE_URL: await twilio.start(),
        TWILIO_ACCOUNT_SID: twilio.accountSid,
        TWILIO_AUTH_TOKEN: twilio.authToken,
        TWILIO_FROM: '+15005550006',
      },
    });
    worker = await startTestWorker(t);
    m = await seedMerchant(t, { name: 'Acme Inc' });
    await fund(t, m, 100_000);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await worker?.close();
    await t.close();
    await twilio.stop();
  });

  // A browser run per width, each with room for a loaded machine.
  it.each([
    ['phone', PHONE, '+1 (415) 555-0171'],
    ['desktop', DESKTOP, '+14155550172'],
  ] as const)('a developer sends with a phone from the Send page (a malformed number is refused first); the reward shows the text Sent (%s width)', async (width, device, number) => {
    const developer = await addMember(t, m.accountId, 'developer');
    {
      const { context, page } = await signInToDashboard(browser, t.baseUrl, device, { email: developer.email, password: MEMBER_PASSWORD });
      await page.goto(`${t.baseUrl}/dashboard/send`);
      await page.getByLabel("Recipient's choice (CHOICE)").check();
      const email = recipient().email;
      await page.getByLabel('Recipient e-mail').fill(email);
      await page.getByLabel('First name').fill('Ada');
      await page.getByLabel(/^Amount/).fill('25');
      const phone = page.getByLabel('Mobile phone (optional)');
      await phone.fill('415 555 0171');
      await page.getByRole('button', { name: 'Send reward' }).click();
      await page.getByText('Enter the number with + and the country code, e.g. +14155550123.').waitFor();
      expect(await page.getByRole('dialog').count()).toBe(0);
      expect(await phone.getAttribute('aria-invalid')).toBe('true');
      await expectAccessible(page, `Send page, malformed phone (${width})`);
      await expectNoSidewaysScroll(page, `Send page, malformed phone (${width})`);

      await phone.fill(number);
      await page.getByRole('button', { name: 'Send reward' }).click();
      const dialog = page.getByRole('dialog', { name: 'Send this reward?' });
      const e164 = number.replace(/[\s().-]/g, '');
      await dialog.getByText(e164).waitFor();
      await dialog.getByRole('button', { name: 'Send $25.00' }).click();
      await page.getByText(`Reward of $25.00 sent to ${email}.`).waitFor();
      await eventually(async () => twilio.sentTo(e164).length === 1);

      await page.getByRole('link', { name: 'See the reward' }).click();
      await page.getByRole('heading', { level: 1 }).waitFor();
      await eventually(async () => {
        await page.reload();
        await page.getByRole('heading', { level: 1 }).waitFor();
        // The Text message row itself says Sent (the page has other "Sent" labels: the reward's status, its timeline).
        return (await page.locator('dt:text-is("Text message") + dd').innerText()).trim() === `Sent to ${e164}`;
      });
      await expectAccessible(page, `Reward page, text sent (${width})`);
      await expectNoSidewaysScroll(page, `Reward page, text sent (${width})`);
      await context.close();
    }
  }, 180_000);

  it('a refused number shows Failed with the provider’s answer on the reward, at phone and desktop width', async () => {
    const to = '+14155550179';
    twilio.fail(to, { status: 400, code: 21610, message: 'Attempt to send to unsubscribed recipient' });
    const sent = await t.api.as(m.key).post('/v1/rewards', choiceReward(1_000, { recipient: recipient({ phone: to }) }));
    const id = sent.body.reward.id;
    await eventually(async () => (await t.api.as(m.key).get(`/v1/rewards/${id}`)).body.reward.smsStatus === 'FAILED');
    for (const [device, width] of [
      [PHONE, 'phone'],
      [DESKTOP, 'desktop'],
    ] as const) {
      const { context, page } = await signInToDashboard(browser, t.baseUrl, device, { email: m.email, password: m.password });
      await page.goto(`${t.baseUrl}/dashboard/rewards/${id}`);
      await page.getByText('Twilio 400 21610 Attempt to send to unsubscribed recipient').waitFor();
      await expectAccessible(page, `Reward page, text failed (${width})`);
      await expectNoSidewaysScroll(page, `Reward page, text failed (${width})`);
      await page.screenshot({ path: artifact(`dashboard-sms-failed-${width}.png`), fullPage: true });
      await context.close();
    }
  }, 180_000);
});
