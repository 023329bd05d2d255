import { execFileSync } from 'node:child_process';
import type { Browser, Download } from 'playwright-core';
import { artifact, DESKTOP, expectAccessible, expectNoSidewaysScroll, launchChromium, navLink, PHONE, signInToDashboard } from '../support/browser';
import { choiceReward } from '../support/rewards';
import { SeededMerchant, seedMerchant, startTestApp, TestApp } from '../support/test-app';

/**
 * The Wallet page's monthly statement and top-up receipts (docs/statements.md, docs/dashboard.md) in
 * Debian's Chromium, at phone and desktop width: the figures the API computes, the PDF downloads
 * (read back with pdftotext), nothing loaded from outside, axe clean.
 */
describe('statements and receipts on the Wallet page (Debian chromium)', () => {
  let t: TestApp;
  let m: SeededMerchant;
  let browser: Browser;
  let topupId: string;

  beforeAll(async () => {
    t = await startTestApp();
    m = await seedMerchant(t, { name: 'Statement Browser Co' });
    topupId = (await t.api.as(m.key).post('/v1/topups', { amountCents: 200_000 })).body.topup.id;
    expect((await t.api.as(m.key).post('/v1/topups', { amountCents: 7_550, currency: 'EUR' })).status).toBe(201);
    expect((await t.api.as(m.key).post('/v1/rewards', choiceReward(2_500))).status).toBe(201);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t.close();
  });



  /** The text of a downloaded PDF, as pdftotext reads it. */
  async function pdfText(download: Download, name: string): Promise<string> {
    const path = artifact(name);
    await download.saveAs(path);
    return execFileSync('pdftotext', ['-layout', path, '-'], { encoding: 'utf8' });
  }

  const month = new Date().toISOString().slice(0, 7);
  const lastMonth = new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth() - 1, 1)).toISOString().slice(0, 7);

  it('shows a month’s statement per currency, downloads it as a PDF, and a top-up’s receipt, at phone and desktop width', async () => {
    for (const [device, name] of [
      [PHONE, 'phone'],
      [DESKTOP, 'desktop'],
    ] as const) {
      const { context, page, external } = await signInToDashboard(browser, t.baseUrl, device, m);
      await navLink(page, 'Wallet', { exact: true }).click();
      await page.getByRole('heading', { name: 'Monthly statement' }).waitFor();

      // This month, the primary wallet: the top-up, the hold, and the balances of now.
      await expect(page.getByLabel('Statement month').inputValue()).resolves.toBe(month);
      const usd = page.getByRole('region', { name: `Statement ${month} USD` });
      const figure = (region: typeof usd, label: string) => region.locator('dt', { hasText: new RegExp(`^${label}$`) }).locator('xpath=following-sibling::dd[1]');
      await usd.waitFor();
      await expect(figure(usd, 'Top-ups').textContent()).resolves.toBe('$2,000.00');
      await expect(figure(usd, 'Held for rewards sent').textContent()).resolves.toBe('$25.00');
      await expect(figure(usd, 'Closing available').textContent()).resolves.toBe('$1,975.00');
      await expect(figure(usd, 'Closing reserved').textContent()).resolves.toBe('$25.00');
      await page.screenshot({ path: artifact(`dashboard-wallet-statement-${name}.png`), fullPage: true });
      await expectAccessible(page, `Wallet statement (${name})`);
      await expectNoSidewaysScroll(page, `Wallet statement (${name})`);

      // The PDF of what is on screen.
      const [statementPdf] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download PDF' }).click()]);
      expect(statementPdf.suggestedFilename()).toBe(`statement-${month}-USD.pdf`);
      const text = await pdfText(statementPdf, `statement-${name}.pdf`);
      expect(text).toContain('Statement Browser Co');
      expect(text).toMatch(/Top-ups\s+2,000\.00 USD/);
      expect(text).toMatch(/Closing available\s+1,975\.00 USD/);

      // Another currency; then last month, before any money: zeros.
      await page.getByLabel('Statement currency').selectOption('EUR');
      const eur = page.getByRole('region', { name: `Statement ${month} EUR` });
      await expect(figure(eur, 'Top-ups').textContent()).resolves.toBe('€75.50');
      await page.getByLabel('Statement month').fill(lastMonth);
      const before = page.getByRole('region', { name: `Statement ${lastMonth} EUR` });
      await expect(figure(before, 'Closing available').textContent()).resolves.toBe('€0.00');

      // Each TOPUP row links to its receipt.
      const receiptLink = page.getByRole('link', { name: `Receipt of top-up ${topupId} (PDF)` });
      const [receipt] = await Promise.all([page.waitForEvent('download'), receiptLink.click()]);
      expect(receipt.suggestedFilename()).toBe(`receipt-${topupId}.pdf`);
      const receiptText = await pdfText(receipt, `receipt-${name}.pdf`);
      expect(receiptText).toContain(topupId);
      expect(receiptText).toContain('Statement Browser Co');
      expect(receiptText).toMatch(/2,000\.00 USD/);
      await expectAccessible(page, `Wallet with last month's statement (${name})`);
      await expectNoSidewaysScroll(page, `Wallet with last month's statement (${name})`);
      expect(external).toEqual([]);
      await context.close();
    }
  }, 120_000);
});
