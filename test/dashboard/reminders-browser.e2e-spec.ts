import type { Browser, BrowserContext, Page } from 'playwright-core';
import { DESKTOP, expectAccessible, expectNoSidewaysScroll, launchChromium, navLink, PHONE, signInToDashboard } from '../support/browser';
import { isolatedDatabase, SeededMerchant, seedMerchant, startTestApp, TestApp } from '../support/test-app';

/** The reminders form of the Settings page (docs/delivery.md, Reminders), in a real browser at phone and desktop width. */
describe('dashboard reminder settings in a real browser (Debian chromium)', () => {
  let t: TestApp;
  let m: SeededMerchant;
  let browser: Browser;
  const outside: { url: string; type: string }[] = [];

  async function signedIn(device: typeof DESKTOP | typeof PHONE): Promise<{ context: BrowserContext; page: Page }> {
    const { context, page, external } = await signInToDashboard(browser, t.baseUrl, device, m);
    page.on('close', () => external.forEach((url) => outside.push(url)));
    return { context, page };
  }
  const nav = (page: Page) => navLink(page, 'Settings');
  const settings = async () => (await t.api.as(m.key).get('/v1/account/reminder-settings')).body.reminderSettings;

  beforeAll(async () => {
    t = await startTestApp({ env: await isolatedDatabase() });
    m = await seedMerchant(t, { name: 'Reminders Inc' });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });
  afterEach(() => expect(outside).toEqual([]));

  it('saves reminders, shows the service’s refusal beside the field, and clears them, at phone and desktop width', async () => {
    for (const [device, name, after, before] of [
      [DESKTOP, 'desktop', '3, 10', '2'],
      [PHONE, 'phone', '1 7 30', '5'],
    ] as const) {
      const { context, page } = await signedIn(device);
      await nav(page).click();
      const form = page.getByRole('form', { name: 'Reminders' });
      await form.getByLabel('Days after sending').fill(after);
      await form.getByLabel('Days before expiry').fill(before);
      await form.getByRole('button', { name: 'Save reminders' }).click();
      await form.getByText('Reminders saved.').waitFor();
      expect(await settings()).toEqual({ afterDays: after.split(/[ ,]+/).map(Number), beforeExpiryDays: Number(before) });
      await expectAccessible(page, `Settings with reminders (${name})`);
      await expectNoSidewaysScroll(page, `Settings with reminders (${name})`);

      // Not ascending, then out of range: the service says why, beside the field; nothing changes.
      await form.getByLabel('Days after sending').fill('10, 3');
      await form.getByRole('button', { name: 'Save reminders' }).click();
      await form.locator('.field-error').filter({ hasText: 'List the days smallest first, each once, e.g. 3, 10.' }).waitFor();
      expect(await form.getByText('afterDays').count()).toBe(0);
      await expect(form.getByLabel('Days after sending').getAttribute('aria-invalid')).resolves.toBe('true');
      await expectAccessible(page, `Settings with refused reminders (${name})`);
      await form.getByLabel('Days after sending').fill('3');
      await form.getByLabel('Days before expiry').fill('31');
      await form.getByRole('button', { name: 'Save reminders' }).click();
      await form.locator('.field-error').filter({ hasText: /30/ }).waitFor();
      await expect(form.getByLabel('Days before expiry').getAttribute('aria-invalid')).resolves.toBe('true');
      expect(await settings()).toEqual({ afterDays: after.split(/[ ,]+/).map(Number), beforeExpiryDays: Number(before) });

      // Not a number: refused in the page before sending.
      await form.getByLabel('Days after sending').fill('three');
      await form.getByRole('button', { name: 'Save reminders' }).click();
      await form.getByText(/Enter whole numbers of days/).waitFor();

      await form.getByLabel('Days after sending').fill('');
      await form.getByLabel('Days before expiry').fill('');
      await form.getByRole('button', { name: 'Save reminders' }).click();
      await form.getByText('Reminders saved.').waitFor();
      expect(await settings()).toEqual({ afterDays: [], beforeExpiryDays: null });
      await context.close();
    }
  }, 120_000);
});
