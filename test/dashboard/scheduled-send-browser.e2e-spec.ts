import type { Browser } from 'playwright-core';
import { artifact, DESKTOP, expectAccessible, expectNoSidewaysScroll, launchChromium, PHONE, signInToDashboard } from '../support/browser';
import { fund, recipient } from '../support/rewards';
import { SeededMerchant, seedMerchant, startTestApp, TestApp } from '../support/test-app';

const DAY = 24 * 3600 * 1000;

/** The Send page's optional schedule and the reward's scheduled delivery (docs/delivery.md, Scheduled sends), in a real browser. */
describe('dashboard: scheduling a send, in a real browser (Debian chromium)', () => {
  let t: TestApp;
  let m: SeededMerchant;
  let browser: Browser;

  beforeAll(async () => {
    t = await startTestApp();
    m = await seedMerchant(t, { name: 'Acme Inc' });
    await fund(t, m, 100_000);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t.close();
  });

  it('the time is typed in the user’s zone, the UTC instant is shown; the reward is scheduled, held, and says when; no Resend before then', async () => {
    // India has no daylight saving time: 09:30 there is 04:00 UTC on any day.
    const inIndia = { timezoneId: 'Asia/Kolkata' };
    const devices: [string, typeof PHONE | typeof DESKTOP][] = [
      ['phone', Object.assign({}, PHONE, inIndia)],
      ['desktop', Object.assign({}, DESKTOP, inIndia)],
    ];
    for (const [name, device] of devices) {
      const day = new Date(Date.now() + 3 * DAY).toISOString().slice(0, 10);
      const { context, page } = await signInToDashboard(browser, t.baseUrl, device, { email: m.email, password: m.password });
      await page.goto(`${t.baseUrl}/dashboard/send`);
      await page.getByLabel("Recipient's choice (CHOICE)").check();
      const email = recipient().email;
      await page.getByLabel('Recipient e-mail').fill(email);
      await page.getByLabel('First name').fill('Ada');
      await page.getByLabel(/^Amount/).fill('25');
      await page.getByText('Sent as soon as you confirm.').waitFor();
      await page.getByLabel(/^Deliver at \(your time zone, Asia\/(Kolkata|Calcutta)\)/).fill(`${day}T09:30`);
      await page.getByText(`${day} 04:00 UTC`).waitFor();
      await expectAccessible(page, `Send page with a schedule (${name})`);
      await expectNoSidewaysScroll(page, `Send page with a schedule (${name})`);
      await page.screenshot({ path: artifact(`dashboard-send-scheduled-${name}.png`), fullPage: true });

      await page.getByRole('button', { name: 'Send reward' }).click();
      const dialog = page.getByRole('dialog', { name: 'Send this reward?' });
      await dialog.getByText(`${day} 04:00 UTC`).waitFor();
      await dialog.getByRole('button', { name: 'Send $25.00' }).click();
      await page.getByText(`Reward of $25.00 to ${email} scheduled`).waitFor();

      const list = await t.api.as(m.key).get(`/v1/rewards?status=CREATED&page_size=100`);
      const sent = list.body.rewards.find((r: { recipientEmail: string }) => r.recipientEmail === email);
      expect(sent).toMatchObject({ status: 'CREATED', emailStatus: 'SCHEDULED', deliverAt: `${day}T04:00:00.000Z`, remainingValueCents: 2_500 });

      await page.getByRole('link', { name: 'See the reward' }).click();
      await page.getByText('Scheduled delivery').waitFor();
      expect(await page.getByText(`(${day} 04:00 UTC): not delivered yet`).isVisible()).toBe(true);
      expect(await page.locator('.facts .email-status').textContent()).toBe('Scheduled');
      expect(await page.getByRole('button', { name: 'Resend' }).count()).toBe(0);
      await expectAccessible(page, `Scheduled reward (${name})`);
      await expectNoSidewaysScroll(page, `Scheduled reward (${name})`);
      await page.screenshot({ path: artifact(`dashboard-reward-scheduled-${name}.png`), fullPage: true });
      await context.close();
    }
  }, 180_000);

  it('a time too soon is refused with the API’s reason in merchant words beside the field, and nothing is held', async () => {
    const { context, page } = await signInToDashboard(browser, t.baseUrl, DESKTOP, { email: m.email, password: m.password });
    const before = (await t.api.as(m.key).get('/v1/wallet')).body.wallet.availableCents;
    await page.goto(`${t.baseUrl}/dashboard/send`);
    await page.getByLabel("Recipient's choice (CHOICE)").check();
    await page.getByLabel('Recipient e-mail').fill(recipient().email);
    await page.getByLabel('First name').fill('Ada');
    await page.getByLabel(/^Amount/).fill('10');
    // The browser's zone is UTC here (no timezoneId): a past time.
    await page.getByLabel(/^Deliver at/).fill('2020-01-01T10:00');
    await page.getByRole('button', { name: 'Send reward' }).click();
    await page.getByRole('dialog', { name: 'Send this reward?' }).getByRole('button', { name: 'Send $10.00' }).click();
    // In the merchant's words (docs/dashboard.md, Errors), not the API's field name.
    await page.getByText('Choose a time at least a minute from now, or leave it empty to send now.').first().waitFor();
    await expectAccessible(page, 'Send page, schedule refused');
    expect((await t.api.as(m.key).get('/v1/wallet')).body.wallet.availableCents).toBe(before);
    await context.close();
  });
});
