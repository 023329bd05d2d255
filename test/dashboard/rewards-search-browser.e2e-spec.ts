import type { Browser, BrowserContext, Page } from 'playwright-core';
import { DataSource } from 'typeorm';
import { artifact, DESKTOP, expectAccessible, expectNoSidewaysScroll, launchChromium, navLink, PHONE, signInToDashboard, watchSavedFiles } from '../support/browser';
import { expectLedgerInvariants } from '../support/ledger-invariants';
import { fund } from '../support/rewards';
import { isolatedDatabase, SeededMerchant, seedMerchant, startTestApp, TestApp } from '../support/test-app';

/**
 * The Rewards page's search, sort, status badges and bulk actions on ticked rows, and the Audit
 * log's readable targets and old → new values (docs/dashboard.md), in a real browser at phone and
 * desktop width.
 */
describe('dashboard: finding rewards, acting on several, and who did what (Debian chromium)', () => {
  let t: TestApp;
  let m: SeededMerchant;
  let browser: Browser;
  const outside: { url: string; type: string }[] = [];

  async function signedIn(device: typeof DESKTOP | typeof PHONE, beforeLoad?: (page: Page) => Promise<void>): Promise<{ context: BrowserContext; page: Page }> {
    const { context, page, external } = await signInToDashboard(browser, t.baseUrl, device, m, beforeLoad);
    page.on('close', () => external.forEach((url) => outside.push(url)));
    return { context, page };
  }
  const nav = (page: Page, name: string | RegExp) => navLink(page, name);
  const rowsShown = (page: Page) => page.getByRole('region', { name: /^Table/ }).locator('tbody tr').count();

  async function send(email: string, firstName: string, valueCents: number): Promise<string> {
    const res = await t.api.as(m.key).post('/v1/rewards', { type: 'CHOICE', valueCents, recipient: { email, firstName } });
    expect(res.status).toBe(201);
    return res.body.reward.id;
  }

  beforeAll(async () => {
    t = await startTestApp({ env: await isolatedDatabase() });
    m = await seedMerchant(t, { name: 'Search Inc' });
    await fund(t, m, 100_000);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await expectLedgerInvariants(t.app.get(DataSource), m.accountId);
    await t?.close();
  });
  afterEach(() => expect(outside).toEqual([]));

  it('searches by recipient, sorts by value, shows status badges, and exports, resends and cancels the ticked rows', async () => {
    for (const [device, name] of [
      [DESKTOP, 'desktop'],
      [PHONE, 'phone'],
    ] as const) {
      const small = await send(`ada.${name}@example.com`, 'Ada', 1_000);
      const large = await send(`adele.${name}@example.com`, 'Adele', 5_000);
      await send(`grace.${name}@example.com`, 'Grace', 2_000);

      const { context, page } = await signedIn(device);
      const saved = await watchSavedFiles(page);
      await page.reload();
      await page.getByRole('heading', { name: 'Overview' }).waitFor();
      await nav(page, 'Rewards').click();
      await page.getByRole('heading', { level: 1, name: 'Rewards' }).waitFor();

      // Case-insensitive prefix of the e-mail or the name.
      await page.getByLabel('Recipient').fill(`ADA.${name.toUpperCase()}`);
      await page.getByRole('button', { name: 'Search' }).click();
      await page.getByRole('caption').getByText('1 rewards').waitFor();
      await page.getByRole('link', { name: `ada.${name}@example.com` }).waitFor();
      await page.getByLabel('Recipient').fill('ad');
      await page.getByRole('button', { name: 'Search' }).click();
      await page.getByRole('link', { name: `adele.${name}@example.com` }).waitFor();
      expect(await page.getByRole('link', { name: /^grace\./ }).count()).toBe(0);
      // Status badges say the status in words.
      await page.getByText('Sent', { exact: true }).first().waitFor();

      // Highest value first puts the $50.00 reward on top.
      await page.getByLabel('Sort by').selectOption('-faceValueCents');
      await page.waitForURL(/sort=-faceValueCents/);
      await page.locator('tbody tr').first().getByRole('link', { name: `adele.${name}@example.com` }).waitFor();
      expect(await rowsShown(page)).toBeGreaterThanOrEqual(2);
      await expectAccessible(page, `Rewards searched and sorted (${name})`);
      await expectNoSidewaysScroll(page, `Rewards searched and sorted (${name})`);

      // Tick the two of this round.
      await page.getByLabel(`Select the reward to ada.${name}@example.com`).check();
      await page.getByLabel(`Select the reward to adele.${name}@example.com`).check();
      await page.getByText('2 selected').waitFor();
      await expectAccessible(page, `Rewards with rows selected (${name})`);
      await expectNoSidewaysScroll(page, `Rewards with rows selected (${name})`);
      await page.screenshot({ path: artifact(`dashboard-rewards-selected-${name}.png`), fullPage: true });

      const file = await saved.next(() => page.getByRole('button', { name: 'Export selected' }).click());
      expect(file.filename).toBe('rewards-selected.csv');
      const lines = file.text.trim().split(/\r?\n/);
      expect(lines[0]).toMatch(/^id,type,status,recipient_email,/);
      expect(lines.slice(1).map((line) => line.split(',')[0]).sort()).toEqual([small, large].sort());

      await page.getByRole('button', { name: 'Resend selected' }).click();
      await page.getByText('Resent 2 of 2.').waitFor();

      // Cancelling asks first; "Cancel" in the dialog changes nothing.
      await page.getByLabel(`Select the reward to ada.${name}@example.com`).check();
      await page.getByLabel(`Select the reward to adele.${name}@example.com`).check();
      await page.getByRole('button', { name: 'Cancel selected' }).click();
      const dialog = page.getByRole('dialog', { name: 'Cancel 2 rewards?' });
      await dialog.getByText('$60.00').waitFor();
      await expectAccessible(page, `Cancel confirmation (${name})`);
      await dialog.getByRole('button', { name: 'Cancel', exact: true }).click();
      expect((await t.api.as(m.key).get(`/v1/rewards/${small}`)).body.reward.status).toBe('SENT');
      await page.getByRole('button', { name: 'Cancel selected' }).click();
      await page.getByRole('dialog', { name: 'Cancel 2 rewards?' }).getByRole('button', { name: 'Cancel 2 rewards' }).click();
      await page.getByText('Cancelled 2 of 2.').waitFor();
      for (const id of [small, large]) expect((await t.api.as(m.key).get(`/v1/rewards/${id}`)).body.reward.status).toBe('CANCELED');
      await page.getByText('Cancelled', { exact: true }).first().waitFor();
      // Cancelled rewards, selected again, offer neither a resend (it would e-mail a dead link) nor a cancel.
      for (const email of [`ada.${name}@example.com`, `adele.${name}@example.com`]) {
        await page.locator('tbody tr').filter({ hasText: email }).getByText('Cancelled', { exact: true }).waitFor();
        await page.getByLabel(`Select the reward to ${email}`).check();
      }
      await page.getByText('2 selected').waitFor();
      expect(await page.getByRole('button', { name: 'Resend selected' }).isDisabled()).toBe(true);
      expect(await page.getByRole('button', { name: 'Cancel selected' }).isDisabled()).toBe(true);
      await page.getByRole('button', { name: 'Clear selection' }).click();

      const audited: { action: string; actor_type: string; n: number }[] = await t.app
        .get(DataSource)
        .query(
          `SELECT action, actor_type, count(*)::int AS n FROM audit_log WHERE account_id = $1 AND target_id = ANY($2) GROUP BY 1, 2 ORDER BY 1, 2`,
          [m.accountId, [small, large]],
        );
      expect(audited).toEqual([
        { action: 'reward.canceled', actor_type: 'user', n: 2 },
        { action: 'reward.created', actor_type: 'api_key', n: 2 },
        { action: 'reward.resent', actor_type: 'user', n: 2 },
      ]);
      await context.close();
    }
  }, 240_000);

  it('the audit log names targets in words and shows old → new values, at phone and desktop width', async () => {
    await send('audited@example.com', 'Audie', 1_500);
    expect((await t.api.as(m.key).put('/v1/account/approval-settings', { approvalSettings: { thresholdCents: 90_000 } })).status).toBe(200);
    for (const [device, name] of [
      [DESKTOP, 'desktop'],
      [PHONE, 'phone'],
    ] as const) {
      const { context, page } = await signedIn(device);
      await nav(page, 'Audit log').click();
      await page.getByRole('heading', { level: 1, name: 'Audit log' }).waitFor();
      await page.getByRole('link', { name: /^Reward to audited@example\.com \(\$15\.00\)$/ }).first().waitFor();
      const threshold = page.getByRole('listitem').filter({ hasText: 'thresholdCents' }).first();
      await threshold.waitFor();
      expect((await threshold.innerText()).replace(/\s+/g, ' ')).toBe('thresholdCents: none → 90000');
      await expectAccessible(page, `Audit log (${name})`);
      await expectNoSidewaysScroll(page, `Audit log (${name})`);
      await page.screenshot({ path: artifact(`dashboard-audit-log-${name}.png`), fullPage: true });
      await context.close();
    }
  }, 120_000);
});
