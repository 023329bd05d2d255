import Papa from 'papaparse';
import type { Browser } from 'playwright-core';
import { Sweepers } from '@app/core';
import { REPORT_BUILD_SWEEP } from '@app/reports';
import { artifact, DESKTOP, expectAccessible, expectNoSidewaysScroll, launchChromium, PHONE, signInToDashboard } from '../support/browser';
import { fund } from '../support/rewards';
import { SeededMerchant, seedMerchant, startTestApp, startTestWorker, TestApp, TestWorker } from '../support/test-app';



/** The Reports page (docs/dashboard.md, Reports; docs/reports.md) in a real browser, at phone and desktop width. */
describe('dashboard: reports in a real browser (Debian chromium)', () => {
  let t: TestApp;
  let worker: TestWorker;
  let m: SeededMerchant;
  let browser: Browser;

  beforeAll(async () => {
    t = await startTestApp();
    worker = await startTestWorker(t);
    m = await seedMerchant(t, { name: 'Reports Inc' });
    await fund(t, m, 50_000);
    for (const [campaign, firstName] of [
      ['spring', 'Zoë'],
      ['spring', '=cmd'],
      ['autumn', 'Ada'],
    ]) {
      const res = await t.api.as(m.key).post('/v1/rewards', { type: 'CHOICE', valueCents: 1_000, campaign, recipient: { email: `${firstName.length}@example.test`, firstName } });
      expect(res.status).toBe(201);
    }
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await worker?.close();
    await t?.close();
  });

  it('requests a report of the filtered rewards from the Rewards page, sees it complete and downloads its CSV; a refused range shows its error; at phone and desktop width, accessible', async () => {
    const today = new Date().toISOString().slice(0, 10);
    for (const [device, name] of [
      [PHONE, 'phone'],
      [DESKTOP, 'desktop'],
    ] as const) {
      const { context, page, external } = await signInToDashboard(browser, t.baseUrl, device, m);

      // From the Rewards page, its filters go along.
      await page.goto(`${t.baseUrl}/dashboard/rewards?campaign=spring&from=${today}&to=${today}`);
      await page.getByText('2 rewards').waitFor();
      await page.getByRole('link', { name: 'Report of these rewards…' }).click();
      await page.getByRole('heading', { level: 1, name: 'Reports' }).waitFor();
      await page.getByRole('list', { name: 'Also filtered as the list was:' }).getByText('spring').waitFor();
      await expect(page.getByLabel('From', { exact: true }).inputValue()).resolves.toBe(today);
      await expectAccessible(page, `Reports form (${name})`);

      await page.getByRole('button', { name: 'Request report' }).click();
      await page.getByRole('status').filter({ hasText: 'Report requested' }).waitFor();
      // The worker's sweep builds it (run now, as its 1-s timer would); the page asks again until it is complete.
      await worker.app.get(Sweepers).run(REPORT_BUILD_SWEEP);
      const link = page.getByRole('link', { name: /Download CSV/ }).first();
      await link.waitFor({ timeout: 15_000 });
      const row = page.getByRole('row').filter({ has: link });
      await expect(row.getByRole('cell', { name: 'COMPLETED' }).count()).resolves.toBe(1);
      await expect(row.getByRole('cell', { name: '2', exact: true }).count()).resolves.toBe(1);
      await expectAccessible(page, `Reports list (${name})`);
      await expectNoSidewaysScroll(page, `Reports list (${name})`);
      await page.screenshot({ path: artifact(`dashboard-reports-${name}.png`), fullPage: true });

      const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
      const path = await download.path();
      const text = require('node:fs').readFileSync(path, 'utf8') as string;
      const rows = Papa.parse<Record<string, string>>(text, { header: true, skipEmptyLines: true }).data;
      expect(rows.map((r) => r.campaign)).toEqual(['spring', 'spring']);
      expect(rows.map((r) => r.recipientFirstName).sort()).toEqual(["'=cmd", 'Zoë']);

      // A range of more than 366 days is refused, with the API's message by the dates.
      await page.getByLabel('From', { exact: true }).fill('2024-01-01');
      await page.getByLabel('To', { exact: true }).fill(today);
      await page.getByRole('button', { name: 'Request report' }).click();
      // Beside the field, in the merchant's words (the summary by the button says it too).
      await page.locator('.field-error').filter({ hasText: 'Choose a range of at most 366 days.' }).waitFor();
      await expectAccessible(page, `Reports refusal (${name})`);
      expect(external).toEqual([]);
      await context.close();
    }
  }, 180_000);
});
