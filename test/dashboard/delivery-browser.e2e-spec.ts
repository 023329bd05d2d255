import type { Browser } from 'playwright-core';
import { artifact, DESKTOP, expectAccessible, launchChromium, PHONE, signInToDashboard } from '../support/browser';
import { addMember, MEMBER_PASSWORD } from '../support/dashboard';
import { eventually } from '../support/processes';
import { choiceReward, fund, recipient } from '../support/rewards';
import { SmtpSink } from '../support/smtp-sink';
import { SeededMerchant, seedMerchant, startTestApp, startTestWorker, TestApp, TestWorker } from '../support/test-app';

describe('dashboard: e-mail delivery status and correcting a bounced address, in a real browser (Debian chromium)', () => {
  const smtp = new SmtpSink();
  let t: TestApp;
  let worker: TestWorker;
  let m: SeededMerchant;
  let browser: Browser;

  beforeAll(async () => {
    t = await startTestApp({ env: { SMTP_URL: await smtp.start() } });
    worker = await startTestWorker(t);
    m = await seedMerchant(t, { name: 'Acme Inc' });
    await fund(t, m, 100_000);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await worker?.close();
    await t.close();
    await smtp.stop();
  });

  const signIn = (device: typeof DESKTOP | typeof PHONE, who: { email: string; password: string }) => signInToDashboard(browser, t.baseUrl, device, who);

  it('a developer sees the failed delivery with the reply on the list and the reward, corrects the address, and the e-mail is delivered', async () => {
    const wrong = recipient({ email: `typo-${Date.now()}@example.test`, language: 'fr' });
    smtp.refuseRecipient(wrong.email, { code: 550, text: '5.1.1 No such user here' });
    const sent = await t.api.as(m.key).post('/v1/rewards', choiceReward(3_000, { recipient: wrong }));
    const id = sent.body.reward.id;
    await eventually(async () => (await t.api.as(m.key).get(`/v1/rewards/${id}`)).body.reward.emailStatus === 'FAILED');
    const developer = await addMember(t, m.accountId, 'developer');

    for (const device of [PHONE, DESKTOP]) {
      const width = device === PHONE ? 'phone' : 'desktop';
      const { context, page } = await signIn(device, { email: developer.email, password: MEMBER_PASSWORD });
      await page.goto(`${t.baseUrl}/dashboard/rewards`);
      const row = page.getByRole('row').filter({ hasText: wrong.email });
      await row.waitFor();
      expect(await row.getByText('Failed', { exact: true }).isVisible()).toBe(true);
      await expectAccessible(page, `Rewards list, failed e-mail (${width})`);

      await page.goto(`${t.baseUrl}/dashboard/rewards/${id}`);
      await page.getByRole('heading', { name: 'Correct the address' }).waitFor();
      expect(await page.getByText('550 5.1.1 No such user here').isVisible()).toBe(true);
      expect(await page.getByText('French', { exact: true }).isVisible()).toBe(true);
      await expectAccessible(page, `Reward page, correct the address (${width})`);
      await page.screenshot({ path: artifact(`dashboard-delivery-failed-${width}.png`), fullPage: true });
      // Nothing scrolls the page sideways (a long address wraps; wide tables scroll in their own region).
      const scrollWidth = await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth as number);
      expect(scrollWidth).toBeLessThanOrEqual(device.viewport.width);
      await context.close();
    }

    const { context, page } = await signIn(PHONE, { email: developer.email, password: MEMBER_PASSWORD });
    await page.goto(`${t.baseUrl}/dashboard/rewards/${id}`);
    const right = recipient().email;
    const field = page.getByLabel("Recipient's e-mail");
    await field.fill('not an address');
    await page.getByRole('button', { name: 'Save and send again' }).click();
    // The browser's own check or the API's 400: either way nothing is sent and the reward is unchanged.
    expect((await t.api.as(m.key).get(`/v1/rewards/${id}`)).body.reward.recipientEmail).toBe(wrong.email);
    await field.fill(right);
    await page.getByRole('button', { name: 'Save and send again' }).click();
    await page.getByRole('status').filter({ hasText: `Sent again to ${right}.` }).waitFor();
    const mail = await smtp.waitFor((mail) => mail.to.includes(right));
    expect(mail.headers['content-language']).toBe('fr');
    expect(mail.text).toContain(sent.body.redemptionUrl);
    // The page shows the new state once the relay took it.
    await eventually(async () => {
      await page.reload();
      await page.getByRole('heading', { level: 1 }).waitFor();
      return (await page.locator('.facts .email-status').textContent()) === 'Delivered';
    });
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toContain(right);
    await page.screenshot({ path: artifact('dashboard-delivery-corrected-phone.png'), fullPage: true });
    await context.close();
  });

  it('a viewer sees the status but no form; an opened reward offers no correction', async () => {
    const sent = await t.api.as(m.key).post('/v1/rewards', choiceReward(1_000));
    await smtp.waitFor((mail) => mail.to.includes(sent.body.reward.recipientEmail));
    await fetch(sent.body.redemptionUrl);
    const viewer = await addMember(t, m.accountId, 'viewer');
    const { context, page } = await signIn(DESKTOP, { email: viewer.email, password: MEMBER_PASSWORD });
    await page.goto(`${t.baseUrl}/dashboard/rewards/${sent.body.reward.id}`);
    await page.locator('.facts .email-status').waitFor();
    expect(await page.getByRole('heading', { name: 'Correct the address' }).count()).toBe(0);
    await context.close();

    const owner = await signIn(DESKTOP, { email: m.email, password: m.password });
    await owner.page.goto(`${t.baseUrl}/dashboard/rewards/${sent.body.reward.id}`);
    await owner.page.getByRole('button', { name: 'Resend' }).waitFor();
    expect(await owner.page.getByRole('heading', { name: 'Correct the address' }).count()).toBe(0);
    await owner.context.close();
  });

  it("a developer sends a CHOICE reward in German from the Send page; the e-mail is German and the reward says so", async () => {
    const developer = await addMember(t, m.accountId, 'developer');
    const { context, page } = await signIn(PHONE, { email: developer.email, password: MEMBER_PASSWORD });
    await page.goto(`${t.baseUrl}/dashboard/send`);
    await page.getByLabel("Recipient's choice (CHOICE)").check();
    const email = recipient().email;
    await page.getByLabel('Recipient e-mail').fill(email);
    await page.getByLabel('First name').fill('Jürgen');
    await page.getByLabel("Recipient's language").selectOption({ label: 'German' });
    await page.getByLabel(/^Amount/).fill('40');
    await expectAccessible(page, `Send with a language`);
    await page.getByRole('button', { name: 'Send reward' }).click();
    await page.getByRole('dialog', { name: 'Send this reward?' }).getByRole('button', { name: 'Send $40.00' }).click();
    await page.getByText(`Reward of $40.00 sent to ${email}.`).waitFor();
    const mail = await smtp.waitFor((mail) => mail.to.includes(email));
    expect(mail.headers['content-language']).toBe('de');
    expect(mail.text).toContain('Hallo Jürgen,');
    await page.getByRole('link', { name: 'See the reward' }).click();
    await page.getByText('German', { exact: true }).waitFor();
    await context.close();
  });
});
