import { writeFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { DataSource } from 'typeorm';
import { artifact, DESKTOP, launchChromium, offlineContext, PHONE } from '../support/browser';
import { expectLedgerInvariants } from '../support/ledger-invariants';
import { eventually } from '../support/processes';
import { RecipientClient, splittablePair, tokenOf } from '../support/redemption';
import { CatalogPicks, catalogPicks, choiceReward, fixedReward, fund, recipient } from '../support/rewards';
import { SmtpSink } from '../support/smtp-sink';
import { SeededMerchant, seedMerchant, startTestApp, startTestWorker, TestApp, TestWorker } from '../support/test-app';

const money = (cents: number) => new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' }).format(cents / 100);

/** Every form control on the page has an accessible name (a label or aria-label). */
async function unlabelledControls(page: Page): Promise<string[]> {
  // Runs in the page; typed loosely because the tests compile without the DOM library.
  return page.evaluate(() => {
    const doc = (globalThis as any).document;
    return [...doc.querySelectorAll('input, select, textarea, button')]
      .filter((el: any) => !((el.labels && el.labels.length > 0) || el.getAttribute('aria-label') || (el.tagName === 'BUTTON' && el.textContent.trim())))
      .map((el: any) => String(el.outerHTML).slice(0, 120));
  });
}

describe('redemption page in a real browser (Debian chromium)', () => {
  const smtp = new SmtpSink();
  let t: TestApp;
  let worker: TestWorker;
  let m: SeededMerchant;
  let picks: CatalogPicks;
  let browser: Browser;

  beforeAll(async () => {
    t = await startTestApp({ env: { SMTP_URL: await smtp.start(), REDEMPTION_RATE_LIMIT_PER_MINUTE: '100000' } });
    worker = await startTestWorker(t);
    m = await seedMerchant(t, { name: 'Acme Inc' });
    await fund(t, m, 100_000);
    // The logo is an https URL the offline browser cannot reach: the page falls back to initials.
    await t.api.as(m.key).patch('/v1/account/branding', { senderName: 'Acme People Team', logoUrl: 'https://cdn.acme.test/logo.png', brandColor: '#0A7E4F' });
    picks = await catalogPicks(t, m.key);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await expectLedgerInvariants(t.app.get(DataSource), m.accountId);
    await worker?.close();
    await t.close();
    await smtp.stop();
  });

  it('CHOICE of $50.00 from the e-mail link: picks a fixed card and a variable one, sees both credentials, reward REDEEMED', async () => {
    const pair = await splittablePair(t, m.key, 5_000);
    const to = recipient({ firstName: 'Grace' });
    const sent = await t.api.as(m.key).post('/v1/rewards', choiceReward(5_000, { recipient: to, message: 'Thank you for a great year!' }));
    expect(sent.status).toBe(201);
    const mail = await smtp.waitFor((mail) => mail.to.includes(to.email));
    writeFileSync(artifact('reward-choice.eml'), mail.raw);
    const link = /href="([^"]+\/r\/[A-Za-z0-9]+)"/.exec(mail.html!)![1];
    expect(link.startsWith(`${t.baseUrl}/r/`)).toBe(true);

    const { context, external } = await offlineContext(browser, t.baseUrl, PHONE);
    const page = await context.newPage();
    const response = await page.goto(link, { waitUntil: 'domcontentloaded' });
    expect(response!.status()).toBe(200);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Hi Grace, Acme People Team sent you a $50.00 reward');
    expect(await page.getByText('Thank you for a great year!').isVisible()).toBe(true);
    expect(await page.locator('#remaining-value').textContent()).toBe('$50.00');
    expect(await unlabelledControls(page)).toEqual([]);

    // A fixed card: search its brand, choose it; the amount is its face value.
    await page.getByLabel('Search brands').fill(pair.fixed.brandName);
    await page.getByRole('radio', { name: `${pair.fixed.brandName} ${money(pair.fixed.valueCents)}`, exact: true }).check();
    expect(await page.getByLabel('Amount', { exact: true }).inputValue()).toBe((pair.fixed.valueCents / 100).toFixed(2));
    await page.getByRole('button', { name: 'Get this card' }).click();
    await page.locator('[data-card-status="ISSUED"]').first().waitFor({ timeout: 20_000 });
    const rest = 5_000 - pair.fixed.valueCents;
    expect(await page.locator('#remaining-value').textContent()).toBe(money(rest));
    await page.screenshot({ path: artifact('redemption-choice-phone-one-card.png'), fullPage: true });

    // A variable card for what is left.
    await page.getByLabel('Search brands').fill(pair.variable.brandName);
    await page
      .getByRole('radio', { name: `${pair.variable.brandName} any amount, ${money(pair.variable.minCents)} to ${money(pair.variable.maxCents)}`, exact: true })
      .check();
    await page.getByLabel('Amount', { exact: true }).fill((rest / 100).toFixed(2));
    await page.getByRole('button', { name: 'Get this card' }).click();
    await eventually(async () => (await page.locator('[data-card-status="ISSUED"]').count()) === 2, 20_000, 200);

    // Both cards with their credentials: a code to copy, a link to open, a barcode, an expiry date.
    const issued = (await t.api.as(m.key).get(`/v1/rewards/${sent.body.reward.id}?include_credentials=true`)).body.reward;
    expect(issued.issuedCards).toHaveLength(2);
    for (const card of issued.issuedCards) {
      const item = page.locator(`[data-card-id="${card.id}"]`);
      for (const credential of card.credentials) {
        if (credential.type === 'text') expect(await item.getByText(credential.value, { exact: true }).isVisible()).toBe(true);
        if (credential.type === 'url') expect(await item.getByRole('link', { name: 'Open your card' }).getAttribute('href')).toBe(credential.value);
        if (credential.type === 'barcode') expect(await item.getByRole('img', { name: `Barcode of ${credential.value}` }).isVisible()).toBe(true);
        if (credential.type === 'date') expect(await item.locator(`time[datetime="${credential.value}"]`).isVisible()).toBe(true);
      }
    }
    expect(await page.getByRole('heading', { name: 'Pick a card' }).count()).toBe(0);
    expect(await page.getByText('You have used the whole reward').isVisible()).toBe(true);
    const state = await new RecipientClient(t).state(tokenOf(link));
    expect(state.body.reward).toMatchObject({ status: 'REDEEMED', remainingValueCents: 0 });
    expect(issued.status).toBe('REDEEMED');
    expect(await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.viewport.width);
    await page.screenshot({ path: artifact('redemption-choice-phone.png'), fullPage: true });

    const desktop = await offlineContext(browser, t.baseUrl, DESKTOP);
    const wide = await desktop.context.newPage();
    await wide.goto(link, { waitUntil: 'domcontentloaded' });
    await wide.screenshot({ path: artifact('redemption-choice-desktop.png'), fullPage: true });
    await desktop.context.close();

    // Offline from the internet: only (failed) remote images were asked for; no script, style or font.
    expect(external.filter((request) => request.type !== 'image')).toEqual([]);
    await context.close();
  });

  it('desktop: a CHOICE reward part-way through, with the picker and search (the README screenshot)', async () => {
    const pair = await splittablePair(t, m.key, 5_000);
    const sent = await t.api.as(m.key).post('/v1/rewards', choiceReward(5_000, { recipient: recipient({ firstName: 'Grace' }), message: 'Thank you for a great year!' }));
    const token = tokenOf(sent.body.redemptionUrl);
    await new RecipientClient(t).pick(token, { utid: pair.fixed.utid, amountCents: pair.fixed.valueCents });
    const { context } = await offlineContext(browser, t.baseUrl, DESKTOP);
    const page = await context.newPage();
    await page.goto(sent.body.redemptionUrl, { waitUntil: 'domcontentloaded' });
    await page.locator('[data-card-status="ISSUED"]').first().waitFor({ timeout: 20_000 });
    await page.getByLabel('Search brands').fill(pair.variable.brandName.slice(0, 4));
    expect(await page.getByRole('radio', { name: `${pair.fixed.brandName} ${money(pair.fixed.valueCents)}`, exact: true }).isVisible()).toBe(
      pair.fixed.brandName.toLowerCase().includes(pair.variable.brandName.slice(0, 4).toLowerCase()),
    );
    await page.getByRole('radio', { name: `${pair.variable.brandName} any amount, ${money(pair.variable.minCents)} to ${money(pair.variable.maxCents)}`, exact: true }).check();
    await page.getByLabel('Amount', { exact: true }).fill('25.00');
    await page.screenshot({ path: artifact('redemption-page-desktop.png'), fullPage: true });
    await context.close();
  });

  it('a cancelled reward says so, offers no picks, and still shows the card issued before the cancel', async () => {
    const sent = await t.api.as(m.key).post('/v1/rewards', choiceReward(5_000));
    const token = tokenOf(sent.body.redemptionUrl);
    const pick = await new RecipientClient(t).pick(token, { utid: picks.fixedUsd.utid, amountCents: picks.fixedUsd.valueCents });
    expect(pick.status).toBe(201);
    await eventually(async () => (await new RecipientClient(t).state(token)).body.cards[0].status === 'ISSUED');
    expect((await t.api.as(m.key).post(`/v1/rewards/${sent.body.reward.id}/cancel`)).status).toBe(200);

    const { context } = await offlineContext(browser, t.baseUrl, PHONE);
    const page = await context.newPage();
    await page.goto(sent.body.redemptionUrl, { waitUntil: 'domcontentloaded' });
    expect(await page.getByRole('status').filter({ hasText: 'cancelled' }).textContent()).toContain('This reward was cancelled by the sender');
    expect(await page.getByRole('radio').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Get this card' }).count()).toBe(0);
    expect(await page.getByLabel('Search brands').count()).toBe(0);
    expect(await page.locator('[data-card-status="ISSUED"]').count()).toBe(1);
    await page.screenshot({ path: artifact('redemption-cancelled-phone.png'), fullPage: true });
    await context.close();
  });

  it('a FIXED reward shows its card being issued, then its code', async () => {
    const sent = await t.api.as(m.key).post('/v1/rewards', fixedReward(picks.fixedUsd, { recipient: recipient({ firstName: 'Linus' }) }));
    const { context } = await offlineContext(browser, t.baseUrl, PHONE);
    const page = await context.newPage();
    await page.goto(sent.body.redemptionUrl, { waitUntil: 'domcontentloaded' });
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toMatch(/^Hi Linus, Acme People Team sent you a \$[\d.]+ .+ gift card$/);
    // Issued in the background; a page that showed "Issuing your card…" reloads itself once it is done.
    await page.locator('[data-card-status="ISSUED"]').waitFor({ timeout: 20_000 });
    const card = (await t.api.as(m.key).get(`/v1/rewards/${sent.body.reward.id}?include_credentials=true`)).body.reward.issuedCards[0];
    const code = card.credentials.find((c: any) => c.type === 'text');
    expect(await page.getByText(code.value, { exact: true }).isVisible()).toBe(true);
    expect(await page.getByRole('button', { name: `Copy ${code.label}` }).isVisible()).toBe(true);
    expect(await page.getByRole('radio').count()).toBe(0);
    await page.screenshot({ path: artifact('redemption-fixed-phone.png'), fullPage: true });
    const desktop = await offlineContext(browser, t.baseUrl, DESKTOP);
    const wide = await desktop.context.newPage();
    await wide.goto(sent.body.redemptionUrl, { waitUntil: 'domcontentloaded' });
    await wide.screenshot({ path: artifact('redemption-fixed-desktop.png'), fullPage: true });
    await desktop.context.close();
    await context.close();
  });

  it('a FIXED card still being issued shows a pending state (no worker runs beside this app)', async () => {
    const paused = await startTestApp();
    try {
      const pm = await seedMerchant(paused);
      await fund(paused, pm, 10_000);
      const sent = await paused.api.as(pm.key).post('/v1/rewards', fixedReward(picks.fixedUsd));
      const { context } = await offlineContext(browser, paused.baseUrl, PHONE);
      const page = await context.newPage();
      await page.goto(sent.body.redemptionUrl, { waitUntil: 'domcontentloaded' });
      expect(await page.getByRole('status').filter({ hasText: 'Issuing your card' }).isVisible()).toBe(true);
      expect(await page.locator('[data-card-status="PENDING"]').count()).toBe(1);
      await page.screenshot({ path: artifact('redemption-fixed-pending-phone.png'), fullPage: true });
      await context.close();
      await expectLedgerInvariants(paused.app.get(DataSource), pm.accountId);
    } finally {
      await paused.close();
    }
  });

  it("the e-mail's HTML part renders in Chromium with the branding and a button to the page", async () => {
    const to = recipient({ firstName: 'Hedy' });
    await t.api.as(m.key).post('/v1/rewards', choiceReward(2_500, { recipient: to }));
    const mail = await smtp.waitFor((mail) => mail.to.includes(to.email));
    for (const [name, options] of [['phone', PHONE], ['desktop', DESKTOP]] as const) {
      const { context } = await offlineContext(browser, t.baseUrl, options);
      const page = await context.newPage();
      await page.setContent(mail.html!, { waitUntil: 'domcontentloaded' });
      const button = page.getByRole('link', { name: 'Choose your gift cards' });
      expect(await button.isVisible()).toBe(true);
      expect(await button.getAttribute('href')).toMatch(new RegExp(`^${t.baseUrl}/r/[A-Za-z0-9]{43}$`));
      const box = (await button.boundingBox())!;
      expect(box.width).toBeGreaterThan(100);
      expect(box.x + box.width).toBeLessThanOrEqual(options.viewport.width);
      // Nothing wider than the screen (a long link once was): no sideways scrolling on a phone.
      expect(await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth)).toBeLessThanOrEqual(options.viewport.width);
      // Waited for rather than checked once: under a loaded full run the one-shot isVisible() once answered false here
      // (cause not found; passes alone). A sender name or greeting truly missing still fails, after 5 s.
      await page.getByText('Acme People Team', { exact: true }).waitFor({ state: 'visible', timeout: 5_000 });
      await page.getByText('Hi Hedy,').waitFor({ state: 'visible', timeout: 5_000 });
      const background = await button.evaluate((el: any) => (globalThis as any).getComputedStyle(el.parentElement).backgroundColor);
      expect(background).toBe('rgb(10, 126, 79)');
      await page.screenshot({ path: artifact(`email-${name}.png`), fullPage: true });
      await context.close();
    }
  });
});
