import type { Browser, Page } from 'playwright-core';
import { artifact, DESKTOP, expectAccessible, launchChromium, offlineContext, PHONE } from '../support/browser';
import { splittablePair } from '../support/redemption';
import { CatalogPicks, catalogPicks, choiceReward, fixedReward, fund, recipient } from '../support/rewards';
import { SmtpSink } from '../support/smtp-sink';
import { SeededMerchant, seedMerchant, startTestApp, startTestWorker, TestApp, TestWorker } from '../support/test-app';

const money = (locale: string, cents: number) => new Intl.NumberFormat(locale, { style: 'currency', currency: 'USD' }).format(cents / 100);

const documentLang = (page: Page) => page.evaluate(() => (globalThis as any).document.documentElement.lang as string);

describe("the redemption page in the recipient's language, in a real browser (Debian chromium)", () => {
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
    picks = await catalogPicks(t, m.key);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await worker?.close();
    await t.close();
    await smtp.stop();
  });

  it('fr, in an English browser: the page, its script and its amounts are French; a card is picked in French', async () => {
    const pair = await splittablePair(t, m.key, 5_000);
    const sent = await t.api
      .as(m.key)
      .post('/v1/rewards', choiceReward(5_000, { recipient: recipient({ firstName: 'Amélie', language: 'fr' }), message: 'Thanks a lot!', expiresAt: '2030-12-31T12:00:00Z' }));
    expect(sent.status).toBe(201);
    const { context } = await offlineContext(browser, t.baseUrl, { ...PHONE, locale: 'en-US' });
    const page = await context.newPage();
    await page.goto(sent.body.redemptionUrl, { waitUntil: 'domcontentloaded' });
    expect(await documentLang(page)).toBe('fr');
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(`Bonjour Amélie, Acme Inc vous a envoyé une récompense de ${money('fr-FR', 5_000)}`);
    expect(await page.getByText('Thanks a lot!').isVisible()).toBe(true);
    // The expiry in UTC, the zone named (the recipient's zone is unknown), and the exact instant in `datetime`.
    expect(await page.getByText('Choisissez vos cartes au plus tard le 31 décembre 2030 à 12:00 UTC.').isVisible()).toBe(true);
    expect(await page.locator('time[datetime="2030-12-31T12:00:00.000Z"]').textContent()).toBe('31 décembre 2030 à 12:00 UTC');
    expect(await page.locator('#remaining-value').textContent()).toBe(money('fr-FR', 5_000));

    // The script's own messages are French too.
    await page.getByRole('button', { name: 'Obtenir cette carte' }).click();
    expect(await page.locator('#pick-message').textContent()).toBe('Choisissez d’abord une carte.');
    await page.getByLabel('Rechercher une marque').fill(pair.fixed.brandName);
    await page.getByRole('radio', { name: `${pair.fixed.brandName} ${money('fr-FR', pair.fixed.valueCents)}`, exact: true }).check();
    expect(await page.locator('#amount-hint').textContent()).toBe(`Cette carte a une valeur fixe de ${money('fr-FR', pair.fixed.valueCents)}.`);
    await expectAccessible(page, `redemption page (${await documentLang(page)})`);
    await page.getByRole('button', { name: 'Obtenir cette carte' }).click();
    await page.locator('[data-card-status="ISSUED"]').first().waitFor({ timeout: 20_000 });
    expect(await page.getByRole('heading', { name: 'Vos cartes' }).isVisible()).toBe(true);
    expect(await page.locator('#remaining-value').textContent()).toBe(money('fr-FR', 5_000 - pair.fixed.valueCents));
    await page.screenshot({ path: artifact('redemption-fr-phone.png'), fullPage: true });
    await context.close();
  });

  it('de, FIXED, on a desktop: German headings, card and buttons', async () => {
    const sent = await t.api.as(m.key).post('/v1/rewards', fixedReward(picks.fixedUsd, { recipient: recipient({ firstName: 'Jürgen', language: 'de' }) }));
    expect(sent.status).toBe(201);
    const { context } = await offlineContext(browser, t.baseUrl, { ...DESKTOP, locale: 'fr-FR' });
    const page = await context.newPage();
    await page.goto(sent.body.redemptionUrl, { waitUntil: 'domcontentloaded' });
    expect(await documentLang(page)).toBe('de');
    const heading = await page.getByRole('heading', { level: 1 }).textContent();
    expect(heading).toBe(`Hallo Jürgen, Acme Inc hat Ihnen eine Geschenkkarte von ${sent.body.reward.brandName} im Wert von ${money('de-DE', picks.fixedUsd.valueCents)} geschickt`);
    await page.locator('[data-card-status="ISSUED"]').first().waitFor({ timeout: 20_000 });
    await page.reload({ waitUntil: 'domcontentloaded' });
    expect(await page.getByRole('heading', { name: 'Ihre Geschenkkarte' }).isVisible()).toBe(true);
    expect(await page.getByRole('link', { name: 'Karte öffnen' }).count()).toBeGreaterThan(0);
    expect(await page.getByRole('button', { name: 'Kopieren' }).count()).toBeGreaterThan(0);
    expect(await page.getByText('Geben Sie diese Seite nicht weiter').isVisible()).toBe(true);
    await expectAccessible(page, `redemption page (${await documentLang(page)})`);
    await page.screenshot({ path: artifact('redemption-de-desktop.png'), fullPage: true });
    await context.close();
  });

  it('before its delivery time, in Spanish on a phone and German on a desktop: the page says from when, offers nothing to pick, and is not opened', async () => {
    const deliverAt = new Date(Date.now() + 3 * 24 * 3600_000);
    deliverAt.setUTCHours(9, 30, 0, 0);
    for (const [language, device, opening] of [
      ['es', PHONE, 'Podrás usar esta recompensa a partir del'],
      ['de', DESKTOP, 'Diese Prämie kann ab'],
    ] as const) {
      const sent = await t.api
        .as(m.key)
        .post('/v1/rewards', choiceReward(4_000, { recipient: recipient({ firstName: 'Noa', language }), deliverAt: deliverAt.toISOString() }));
      expect(sent.status).toBe(201);
      const { context } = await offlineContext(browser, t.baseUrl, { ...device, locale: 'en-US' });
      const page = await context.newPage();
      await page.goto(sent.body.redemptionUrl, { waitUntil: 'domcontentloaded' });
      expect(await documentLang(page)).toBe(language);
      const notice = (await page.locator('#reward-status').textContent())!;
      expect(notice.startsWith(opening)).toBe(true);
      // The date in the recipient's language: its month name and the year.
      const month = new Intl.DateTimeFormat(language, { month: 'long', timeZone: 'UTC' }).format(deliverAt);
      expect(notice).toContain(month);
      expect(notice).toContain(String(deliverAt.getUTCFullYear()));
      expect(await page.locator('#pick-form').count()).toBe(0);
      expect(await page.locator('.cards').count()).toBe(0);
      await expectAccessible(page, `redemption page (${await documentLang(page)})`);
      await page.screenshot({ path: artifact(`redemption-scheduled-${language}.png`), fullPage: true });
      await context.close();
      // Seen before delivery: not opened, still scheduled.
      const reward = (await t.api.as(m.key).get(`/v1/rewards/${sent.body.reward.id}`)).body.reward;
      expect({ status: reward.status, emailStatus: reward.emailStatus, openedAt: reward.openedAt ?? null }).toEqual({ status: 'CREATED', emailStatus: 'SCHEDULED', openedAt: null });
    }
  });

  it("without a language, the page follows the browser's language among those it speaks, else English", async () => {
    const sent = await t.api.as(m.key).post('/v1/rewards', choiceReward(2_500, { recipient: recipient({ firstName: 'Lucía' }) }));
    for (const [locale, lang, heading] of [
      ['es-ES', 'es', `¡Hola, Lucía! Acme Inc te ha enviado una recompensa por valor de ${money('es-ES', 2_500)}`],
      ['nl-BE', 'nl', `Hallo Lucía, Acme Inc heeft je een beloning ter waarde van ${money('nl-NL', 2_500)} gestuurd`],
      ['ja-JP', 'en', `Hi Lucía, Acme Inc sent you a ${money('en-US', 2_500)} reward`],
    ]) {
      const { context } = await offlineContext(browser, t.baseUrl, { ...PHONE, locale });
      const page = await context.newPage();
      await page.goto(sent.body.redemptionUrl, { waitUntil: 'domcontentloaded' });
      expect({ locale, lang: await documentLang(page), heading: await page.getByRole('heading', { level: 1 }).textContent() }).toEqual({ locale, lang, heading });
      await context.close();
    }
  });
});
