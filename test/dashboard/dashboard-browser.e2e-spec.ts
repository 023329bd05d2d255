import { createHmac } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { DataSource } from 'typeorm';
import { artifact, cardPicker, chooseCard, DESKTOP, expectAccessible, expectNoSidewaysScroll, launchChromium, navLink, offlineContext, PHONE, signInToDashboard, watchSavedFiles } from '../support/browser';
import { expectedFromAmount, publishedSandboxRates } from '../support/fx';
import { addMember } from '../support/dashboard';
import { expectLedgerInvariants } from '../support/ledger-invariants';
import { eventually } from '../support/processes';
import { catalogPicks, CatalogPicks, fund } from '../support/rewards';
import { SmtpSink } from '../support/smtp-sink';
import { clockOverride, TestClock } from '../support/test-clock';
import { SeededMerchant, seedMerchant, startTestApp, startTestWorker, TestApp, TestWorker } from '../support/test-app';
import { WebhookReceiver } from '../support/webhook-receiver';

/** The navigation of the dashboard, in order, as people (and outside tests) find it. */
const NAV = ['Overview', 'Rewards', 'Send', 'Approvals', 'Catalog', 'Wallet', 'Reports', 'Webhooks', 'Developers', 'Team', 'Settings', 'Audit log'];

/** RFC 6238 (SHA-1, 30 s, 6 digits), written here so the test checks the server against the standard, not against itself. */
function totp(base32Secret: string, at = Date.now()): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const c of base32Secret.replace(/=+$/, '').toUpperCase()) bits += alphabet.indexOf(c).toString(2).padStart(5, '0');
  const key = Buffer.from(bits.match(/.{8}/g)!.map((b) => parseInt(b, 2)));
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(at / 30_000)));
  const mac = createHmac('sha1', key).update(counter).digest();
  const offset = mac[mac.length - 1] & 0xf;
  return String((mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000).padStart(6, '0');
}



describe('merchant dashboard in a real browser (Debian chromium)', () => {
  const smtp = new SmtpSink();
  const receiver = new WebhookReceiver();
  let t: TestApp;
  let worker: TestWorker;
  /** The service's clock (and its worker's): the two-factor test moves it on to the next 30 s step. */
  const clock = new TestClock();
  let m: SeededMerchant;
  let picks: CatalogPicks;
  let browser: Browser;
  const outside: { url: string; type: string }[] = [];

  async function signedIn(
    device: typeof DESKTOP | typeof PHONE = DESKTOP,
    who = { email: '', password: '' },
    beforeLoad?: (page: Page) => Promise<void>,
  ): Promise<{ context: BrowserContext; page: Page }> {
    const { context, page, external } = await signInToDashboard(browser, t.baseUrl, device, { email: who.email || m.email, password: who.password || m.password }, beforeLoad);
    page.on('close', () => external.forEach((url) => outside.push(url)));
    return { context, page };
  }

  const nav = (page: Page, name: string) => navLink(page, name, { exact: true });

  beforeAll(async () => {
    t = await startTestApp({ env: { SMTP_URL: await smtp.start() }, overrides: [clockOverride(clock)] });
    worker = await startTestWorker(t);
    await receiver.start();
    m = await seedMerchant(t, { name: 'Acme Inc' });
    await fund(t, m, 200_000);
    picks = await catalogPicks(t, m.key);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await expectLedgerInvariants(t.app.get(DataSource), m.accountId);
    await worker?.close();
    await t.close();
    await smtp.stop();
    await receiver.close();
  });
  afterEach(() => {
    // Nothing the dashboard loads may come from outside its origin (no CDN, no remote fonts).
    expect(outside).toEqual([]);
  });

  it('the owner signs in and every page of the navigation loads, accessible, at desktop and phone width', async () => {
    for (const [device, name] of [
      [DESKTOP, 'desktop'],
      [PHONE, 'phone'],
    ] as const) {
      const { context, page } = await signedIn(device);
      // The first Tab of a page offers to skip the navigation.
      await page.reload();
      await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
      await page.keyboard.press('Tab');
      await expect(page.evaluate(() => (globalThis as any).document.activeElement?.textContent)).resolves.toBe('Skip to content');
      for (const link of NAV) {
        await nav(page, link).click();
        await page.getByRole('heading', { level: 1, name: link }).waitFor();
        // Each page has its own title, and moving to it moves the focus to its content.
        await expect(page.title()).resolves.toBe(`${link} · Rewards`);
        if (link !== 'Overview') await expect(page.evaluate(() => (globalThis as any).document.activeElement?.id)).resolves.toBe('main');
        // Every loading state on the page ends (in data, an empty state or an error).
        await page.waitForFunction(() => !(globalThis as any).document.querySelector('[aria-busy=true]'), undefined, { timeout: 15_000 });
        await page.screenshot({ path: artifact(`dashboard-${link.toLowerCase().replace(' ', '-')}-${name}.png`), fullPage: true });
        await expectAccessible(page, `${link} (${name})`);
      }
      await context.close();
    }
    // Every page at two widths with an axe scan each: ~20 s alone, 53 s seen beside a loaded machine,
    // over 180 s with six engineers' suites on two cores (load average 12; every page still loading in ~8 s).
  }, 360_000);

  it("a new account's Overview shows the next steps, each a link to where it is done; they go once a reward is sent", async () => {
    const fresh = await seedMerchant(t, { name: 'Fresh Start Ltd' });
    const { context, page } = await signedIn(PHONE, { email: fresh.email, password: fresh.password });
    const steps = page.getByRole('region', { name: 'Get started' });
    await steps.waitFor();
    await expect(steps.getByRole('link').allTextContents()).resolves.toEqual(['Top up the wallet', 'Send a first reward', 'Make an API key']);
    await expectAccessible(page, 'Overview, new account (phone)');
    await steps.getByRole('link', { name: 'Send a first reward' }).click();
    await page.getByRole('heading', { level: 1, name: 'Send' }).waitFor();
    await fund(t, fresh, 1_000);
    expect((await t.api.as(fresh.key).post('/v1/rewards', { type: 'CHOICE', valueCents: 1_000, recipient: { email: 'first@example.com', firstName: 'F' } })).status).toBe(201);
    // Sent over the API, so the page learns of it when loaded again.
    await nav(page, 'Overview').click();
    await page.reload();
    await page.getByRole('heading', { level: 2, name: 'Balances' }).waitFor();
    await expect(page.getByRole('region', { name: 'Get started' }).count()).resolves.toBe(0);
    await context.close();
  });

  it('creates an API key whose secret is shown once and works on /v1', async () => {
    const { context, page } = await signedIn();
    await nav(page, 'Developers').click();
    await page.getByLabel('Key name').fill('Server key');
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = (await page.getByLabel('Secret', { exact: true }).textContent())!.trim();
    expect(secret).toMatch(/^sk_/);
    const res = await fetch(`${t.baseUrl}/v1/account`, { headers: { Authorization: `Bearer ${secret}` } });
    expect(res.status).toBe(200);
    await page.getByRole('button', { name: 'Done' }).click();
    await page.reload();
    await page.getByRole('cell', { name: 'Server key' }).waitFor();
    await expect(page.getByText(secret).count()).resolves.toBe(0);
    await context.close();
  });

  it('tops up the wallet (fake payments settle at once)', async () => {
    const { context, page } = await signedIn();
    await nav(page, 'Wallet').click();
    const before = (await t.api.as(m.key).get('/v1/wallet')).body.wallet.availableCents;
    await page.getByLabel(/Top up amount/).fill('250');
    await page.getByRole('button', { name: 'Top up' }).click();
    await page.getByText('Added $250.00.').waitFor();
    expect((await t.api.as(m.key).get('/v1/wallet')).body.wallet.availableCents).toBe(before + 25_000);
    await page.getByRole('cell', { name: 'TOPUP' }).first().waitFor();
    await context.close();
  });

  it('sends a FIXED reward with the catalog picker and a CHOICE reward; a double click sends once; both appear in Rewards', async () => {
    const { context, page } = await signedIn();
    await nav(page, 'Send').click();
    await page.getByLabel('Recipient e-mail').fill('fixed.person@example.com');
    await page.getByLabel('First name').fill('Fay');
    await page.getByLabel(/^Amount/).fill(String(picks.fixedUsd.valueCents / 100));
    // The picker finds the card by its name; other cards drop out of the list.
    const brands = (await t.api.as(m.key).get('/v1/catalog')).body.brands as { items: { utid: string; rewardName: string }[] }[];
    const rewardName = brands.flatMap((b) => b.items).find((i) => i.utid === picks.fixedUsd.utid)!.rewardName;
    const picker = cardPicker(page, 'Gift card');
    await picker.button.click();
    await picker.options.first().waitFor();
    const pickerSize = await picker.options.count();
    await picker.search.fill(rewardName);
    await eventually(async () => (await picker.options.count()) < pickerSize);
    await picker.options.filter({ hasText: picks.fixedUsd.utid }).click();
    await picker.popover.waitFor({ state: 'detached' });
    const sends: (string | undefined)[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST' && new URL(request.url()).pathname === '/v1/rewards') sends.push(request.headers()['idempotency-key']);
    });
    await page.getByRole('button', { name: 'Send reward' }).click();
    // Nothing leaves before the confirm dialog's button; a double click on it still sends once.
    await page.getByRole('dialog', { name: 'Send this reward?' }).getByRole('button', { name: /^Send \$/ }).dblclick();
    await page.getByText(/^Reward of \$[0-9.,]+ sent to fixed.person@example.com\./).waitFor();
    const fixed = await t.api.as(m.key).get('/v1/rewards?page_size=100');
    expect(fixed.body.rewards.filter((r: any) => r.recipientEmail === 'fixed.person@example.com')).toHaveLength(1);
    // However many requests the double click made, they carried one Idempotency-Key.
    expect(sends.length).toBeGreaterThanOrEqual(1);
    expect(new Set(sends).size).toBe(1);
    expect(sends[0]).toBeTruthy();

    await page.getByRole('button', { name: 'Send another' }).click();
    await page.getByLabel("Recipient's choice (CHOICE)").check();
    await page.getByLabel('Recipient e-mail').fill('choice.person@example.com');
    await page.getByLabel('First name').fill('Cy');
    await page.getByLabel(/^Amount/).fill('40');
    await page.getByLabel('Message (optional)').fill('Thanks for everything');
    await page.getByRole('button', { name: 'Send reward' }).click();
    await page.getByRole('dialog', { name: 'Send this reward?' }).getByRole('button', { name: 'Send $40.00' }).click();
    await page.getByText('Reward of $40.00 sent to choice.person@example.com.').waitFor();
    await expect(page.getByText(/^The recipient's link/).locator('code').textContent()).resolves.toMatch(new RegExp(`^${t.baseUrl}/r/[A-Za-z0-9]+$`));

    await nav(page, 'Rewards').click();
    await page.getByRole('link', { name: 'fixed.person@example.com' }).waitFor();
    await page.getByRole('link', { name: 'choice.person@example.com' }).waitFor();
    await context.close();
  });

  it('sends a CHOICE reward in another currency, funded from another wallet with the converted amount shown, at phone and desktop width', async () => {
    const rates = (await t.api.as(m.key).get('/v1/fx/rates?from=USD')).body.rates as { to: string; rate: number }[];
    const usdToEur = rates.find((r) => r.to === 'EUR')!.rate;
    // 50.00 EUR from USD: ceil(5000 / rate) USD cents, in integers (docs/currencies.md, Rounding).
    const funded = Number((5_000n * 100_000_000n + BigInt(Math.round(usdToEur * 1e8)) - 1n) / BigInt(Math.round(usdToEur * 1e8)));
    const shown = `$${(funded / 100).toFixed(2)}`;
    for (const [device, name] of [
      [PHONE, 'phone'],
      [DESKTOP, 'desktop'],
    ] as const) {
      const eurBefore = (await t.api.as(m.key).get('/v1/wallets')).body.wallets.find((w: any) => w.currency === 'EUR');
      expect(eurBefore?.availableCents ?? 0).toBe(0);
      const { context, page } = await signedIn(device);
      await nav(page, 'Send').click();
      await page.getByLabel("Recipient's choice (CHOICE)").check();
      await page.getByLabel('Recipient e-mail').fill(`euro.${name}@example.com`);
      await page.getByLabel('First name').fill('Eva');
      await page.getByLabel('Reward currency').selectOption('EUR');
      await page.getByLabel('Amount (EUR)').fill('50');
      // The EUR wallet is empty: the USD wallet is offered, with what it would take.
      const usd = page.getByRole('radiogroup', { name: 'Wallet to pay from' }).getByRole('radio', { name: /^USD wallet/ });
      await usd.waitFor();
      await expect(page.getByRole('radiogroup', { name: 'Wallet to pay from' }).textContent()).resolves.toContain(`USD wallet: ${shown} at ${usdToEur}`);
      await page.screenshot({ path: artifact(`dashboard-send-funded-${name}.png`), fullPage: true });
      await expectAccessible(page, `Send, funded from another wallet (${name})`);
      await usd.check();
      await page.getByRole('button', { name: 'Send reward' }).click();
      const confirm = page.getByRole('dialog', { name: 'Send this reward?' });
      // The balance after is the funding wallet's, less what the conversion takes.
      await expect(confirm.textContent()).resolves.toContain('in the USD wallet (converted at');
      await confirm.getByRole('button', { name: 'Send €50.00' }).click();
      await page.getByText(`Reward of €50.00 sent to euro.${name}@example.com.`).waitFor();
      await page.getByText(`converted from the USD wallet: ${shown} at ${usdToEur}.`).waitFor();
      await expectAccessible(page, `Send, sent (${name})`);
      const sent = (await t.api.as(m.key).get('/v1/rewards?page_size=100')).body.rewards.find((r: any) => r.recipientEmail === `euro.${name}@example.com`);
      expect(sent).toMatchObject({ type: 'CHOICE', currency: 'EUR', faceValueCents: 5_000, source: 'dashboard', fx: { fundingCurrency: 'USD', rate: usdToEur, fundedCents: funded } });
      await context.close();
    }

    // With enough in the EUR wallet, nothing is converted and nothing is offered; a FIXED reward follows its card's currency.
    expect((await t.api.as(m.key).post('/v1/topups', { amountCents: 10_000, currency: 'EUR' })).status).toBe(201);
    const { context, page } = await signedIn();
    await nav(page, 'Send').click();
    await page.getByLabel("Recipient's choice (CHOICE)").check();
    await page.getByLabel('Reward currency').selectOption('EUR');
    await page.getByLabel('Amount (EUR)').fill('50');
    await page.getByLabel('Recipient e-mail').waitFor();
    await expect(page.getByRole('group', { name: 'Pay from another wallet' }).count()).resolves.toBe(0);
    await page.getByLabel('One gift card (FIXED)').check();
    await chooseCard(page, 'Gift card', 'GBP');
    await page.getByLabel('Amount (GBP)').fill('1000');
    // No GBP wallet: the other wallets are offered for the card too.
    await page.getByRole('radiogroup', { name: 'Wallet to pay from' }).getByRole('radio', { name: /^EUR wallet/ }).waitFor();
    await context.close();
  }, 120_000);

  it('a bulk CSV with one bad row: the preview shows it, the send reports it, and the others are sent', async () => {
    const { context, page } = await signedIn();
    await nav(page, 'Send').click();
    const csv = [
      'type,email,first_name,amount,utid',
      `FIXED,bulk.one@example.com,One,${picks.fixedUsd.valueCents / 100},${picks.fixedUsd.utid}`,
      'CHOICE,not-an-email,Two,10,',
      'CHOICE,bulk.three@example.com,Three,15,',
    ].join('\n');
    await page.getByLabel('CSV file', { exact: true }).setInputFiles({ name: 'rewards.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    await page.getByText('Preview (nothing sent yet): 2 of 3 rows would be sent').waitFor();
    await expect(page.getByRole('row', { name: /^3 not-an-email .*Error:/ }).count()).resolves.toBe(1);
    await page.getByRole('button', { name: 'Send 2 rewards' }).click();
    await page.getByRole('dialog', { name: 'Send 2 rewards?' }).getByRole('button', { name: /^Send \$/ }).click();
    await page.getByText('Done: 2 of 3 rows sent').waitFor();
    await expect(page.getByRole('row', { name: /^3 not-an-email .*Error:/ }).count()).resolves.toBe(1);
    const all = (await t.api.as(m.key).get('/v1/rewards?page_size=100')).body.rewards.map((r: any) => r.recipientEmail);
    expect(all).toEqual(expect.arrayContaining(['bulk.one@example.com', 'bulk.three@example.com']));
    expect(all).not.toContain('not-an-email');

    // A second file in the same visit is a new submission: its rows are sent, not refused as a reused key.
    const second = ['type,email,first_name,amount', 'CHOICE,bulk.four@example.com,Four,12'].join('\n');
    await page.getByLabel('CSV file', { exact: true }).setInputFiles({ name: 'more.csv', mimeType: 'text/csv', buffer: Buffer.from(second) });
    await page.getByText('Preview (nothing sent yet): 1 of 1 rows would be sent').waitFor();
    await page.getByRole('button', { name: 'Send 1 reward', exact: true }).click();
    await page.getByRole('dialog', { name: 'Send 1 reward?' }).getByRole('button', { name: 'Send $12.00' }).click();
    await page.getByText('Done: 1 of 1 rows sent').waitFor();
    const after = (await t.api.as(m.key).get('/v1/rewards?page_size=100')).body.rewards.map((r: any) => r.recipientEmail);
    expect(after).toContain('bulk.four@example.com');
    await context.close();
  });

  it('codes you can see: Catalog shows brand keys and utids, the template is made from the live catalog and sends unchanged, a bulk card is picked from a list, the preview totals only accepted rows, and a confirm dialog names the balance after (phone and desktop)', async () => {
    const catalog = (await t.api.as(m.key).get('/v1/catalog')).body.brands as { brandKey: string; name: string; items: { utid: string; currencyCode: string; faceValue: number | null; valueType: string }[] }[];
    const fixedBrand = catalog.find((b) => b.items.some((i) => i.utid === picks.fixedUsd.utid))!;
    const count = async () => (await t.api.as(m.key).get('/v1/rewards?page_size=1')).body.total as number;
    const usdAvailable = async () => (await t.api.as(m.key).get('/v1/wallets')).body.wallets.find((w: any) => w.currency === 'USD').availableCents as number;
    const usd = (cents: number) => `$${(cents / 100).toLocaleString('en-US', { minimumFractionDigits: 2 })}`;

    for (const [device, name] of [
      [PHONE, 'phone'],
      [DESKTOP, 'desktop'],
    ] as const) {
      let saved!: Awaited<ReturnType<typeof watchSavedFiles>>;
      const { context, page } = await signedIn(device, undefined, async (p) => void (saved = await watchSavedFiles(p)));
      // Catalog: each brand's key and each card's utid, with a Copy button; the search finds a card by its utid.
      await nav(page, 'Catalog').click();
      await page.getByLabel('Search brands').fill(picks.fixedUsd.utid);
      const brand = page.getByRole('heading', { level: 2, name: fixedBrand.name });
      await brand.waitFor();
      await page.getByRole('button', { name: `Copy the brand key ${fixedBrand.brandKey}` }).waitFor();
      await page.getByRole('button', { name: `Copy the utid ${picks.fixedUsd.utid}` }).waitFor();
      await expectAccessible(page, `Catalog with codes (${name})`);
      await expectNoSidewaysScroll(page, `Catalog with codes (${name})`);

      // The template's example rows name a card and brands of this catalog, and the unchanged file sends.
      await nav(page, 'Send').click();
      const download = await saved.next(() => page.getByRole('button', { name: 'Download the template' }).click());
      expect(download.filename).toBe('rewards-template.csv');
      const template = download.text;
      const [header, fixedRow, choiceRow] = template.trim().split(/\r?\n/).map((line) => line.split(','));
      const utid = fixedRow[header.indexOf('utid')];
      expect(catalog.flatMap((b) => b.items).some((i) => i.utid === utid && i.currencyCode === 'USD')).toBe(true);
      const brandKeys = choiceRow[header.indexOf('brand_keys')].split(';');
      expect(brandKeys.length).toBeGreaterThan(0);
      for (const key of brandKeys) expect(catalog.map((b) => b.brandKey)).toContain(key);
      await page.getByLabel('CSV file', { exact: true }).setInputFiles({ name: 'template.csv', mimeType: 'text/csv', buffer: Buffer.from(template) });
      await page.getByText('Preview (nothing sent yet): 2 of 2 rows would be sent').waitFor();

      // A FIXED row without a utid takes the card chosen from the list; a row the check refuses is not in the total.
      const rows = [
        'type,email,first_name,amount,utid',
        `FIXED,picked.card.${name}@example.com,Pat,${(picks.fixedUsd.valueCents / 100).toFixed(2)},`,
        `CHOICE,too.much.${name}@example.com,Tom,99999999,`,
      ].join('\n');
      await page.getByLabel('CSV file', { exact: true }).setInputFiles({ name: 'rows.csv', mimeType: 'text/csv', buffer: Buffer.from(rows) });
      await page.getByText('Preview (nothing sent yet): 0 of 2 rows would be sent').waitFor();
      await chooseCard(page, 'Gift card for FIXED rows with an empty utid (optional)', picks.fixedUsd.utid, picks.fixedUsd.utid);
      await page.getByText(`Preview (nothing sent yet): 1 of 2 rows would be sent, ${usd(picks.fixedUsd.valueCents)} in all.`).waitFor();
      const previewRow = page.getByRole('row', { name: new RegExp(`picked\\.card\\.${name}@example\\.com`) });
      await expect(previewRow.textContent()).resolves.toContain(`(${picks.fixedUsd.utid})`);

      // The confirm dialog: Escape closes it and nothing is sent; its button sends.
      const before = await count();
      const available = await usdAvailable();
      await page.getByRole('button', { name: 'Send 1 reward', exact: true }).click();
      const dialog = page.getByRole('dialog', { name: 'Send 1 reward?' });
      await expect(dialog.textContent()).resolves.toContain(`${usd(available - picks.fixedUsd.valueCents)} in the USD wallet`);
      await expectAccessible(page, `Bulk confirm dialog (${name})`);
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });
      expect(await count()).toBe(before);
      await page.getByRole('button', { name: 'Send 1 reward', exact: true }).click();
      await dialog.getByRole('button', { name: `Send ${usd(picks.fixedUsd.valueCents)}` }).click();
      await page.getByText(`Done: 1 of 2 rows sent, ${usd(picks.fixedUsd.valueCents)} in all.`).waitFor();
      const resultCsv = (await saved.next(() => page.getByRole('button', { name: 'Download the result' }).click())).text;
      expect(resultCsv.split(/\r?\n/)[0]).toBe('line,email,amount,currency,ok,reward_id,error');
      expect(resultCsv).toContain(`picked.card.${name}@example.com,${(picks.fixedUsd.valueCents / 100).toFixed(2)},USD,true,rw_`);
      const sent = (await t.api.as(m.key).get('/v1/rewards?page_size=100')).body.rewards.find((r: any) => r.recipientEmail === `picked.card.${name}@example.com`);
      expect(sent).toMatchObject({ type: 'FIXED', faceValueCents: picks.fixedUsd.valueCents });

      // The single send: choosing a card of one value fills the amount, and the dialog names amount, recipient and balance after.
      await page.getByLabel('Recipient e-mail').fill(`single.${name}@example.com`);
      await page.getByLabel('First name').fill('Sam');
      await chooseCard(page, 'Gift card', picks.fixedUsd.utid, picks.fixedUsd.utid);
      await expect(page.getByLabel(/^Amount/).inputValue()).resolves.toBe((picks.fixedUsd.valueCents / 100).toFixed(2));
      const availableNow = await usdAvailable();
      await page.getByRole('button', { name: 'Send reward' }).click();
      const single = page.getByRole('dialog', { name: 'Send this reward?' });
      const text = await single.textContent();
      expect(text).toContain(usd(picks.fixedUsd.valueCents));
      expect(text).toContain(`Sam <single.${name}@example.com>`);
      expect(text).toContain(`${usd(availableNow - picks.fixedUsd.valueCents)} in the USD wallet`);
      await expectAccessible(page, `Send confirm dialog (${name})`);
      await single.getByRole('button', { name: 'Cancel' }).click();
      await single.waitFor({ state: 'detached' });
      expect((await t.api.as(m.key).get('/v1/rewards?page_size=100')).body.rewards.some((r: any) => r.recipientEmail === `single.${name}@example.com`)).toBe(false);
      await context.close();
    }
  }, 180_000);

  it('cancels and resends from the reward page, after a confirmation', async () => {
    const sent = await t.api.as(m.key).post('/v1/rewards', { type: 'CHOICE', valueCents: 2_000, recipient: { email: 'cancel.me@example.com', firstName: 'Cam' } });
    expect(sent.status).toBe(201);
    const { context, page } = await signedIn();
    await page.goto(`${t.baseUrl}/dashboard/rewards/${sent.body.reward.id}`);
    // The reward's one link, the create response's, is shown to those who may write rewards.
    await page.getByRole('link', { name: sent.body.redemptionUrl }).waitFor();
    await page.getByRole('button', { name: 'Resend' }).click();
    // The question takes focus; Escape puts it away and focus back on the button, nothing sent.
    const focused = () => page.evaluate(() => (globalThis as any).document.activeElement?.textContent as string);
    await expect(focused()).resolves.toBe('Yes, resend');
    await page.keyboard.press('Escape');
    await expect(focused()).resolves.toBe('Resend');
    await page.getByRole('button', { name: 'Resend' }).click();
    await page.getByRole('button', { name: 'Yes, resend' }).click();
    await page.getByText('The e-mail is on its way again.').waitFor();
    await page.getByRole('button', { name: 'Cancel reward' }).click();
    await page.getByRole('button', { name: 'Yes, cancel reward' }).click();
    await page.getByText('CANCELED', { exact: true }).waitFor();
    const after = await t.api.as(m.key).get(`/v1/rewards/${sent.body.reward.id}`);
    expect(after.body.reward.status).toBe('CANCELED');
    expect(after.body.reward.events.map((e: any) => e.type)).toEqual(expect.arrayContaining(['reward.resent', 'reward.canceled']));
    // One resend: the one put away with Escape sent nothing.
    expect(after.body.reward.events.filter((e: any) => e.type === 'reward.resent')).toHaveLength(1);
    // A canceled reward has nothing left to use: Resend is no longer offered (the API still takes it).
    await expect(page.getByRole('button', { name: 'Resend' }).count()).resolves.toBe(0);
    await context.close();
  });

  it('creates a webhook endpoint, shows its secret once, and a test ping reaches the receiver', async () => {
    const { context, page } = await signedIn();
    await nav(page, 'Webhooks').click();
    await page.getByLabel('URL').fill(`http://127.0.0.1:${receiver.port}/dash-hook`);
    // The long list of events filters, and selects all or none of what it shows.
    const ticked = page.locator('.checkbox-list .picker input:checked');
    const total = await page.locator('.checkbox-list .picker input').count();
    await page.getByLabel('Filter events').fill('wallet.');
    const walletKinds = await page.locator('.checkbox-list .picker input').count();
    expect(walletKinds).toBeGreaterThan(0);
    expect(walletKinds).toBeLessThan(total);
    await page.getByRole('button', { name: 'Select all shown' }).click();
    await expect(ticked.count()).resolves.toBe(walletKinds);
    await page.getByText(`${walletKinds} of ${total} selected`).waitFor();
    await page.getByLabel('Filter events').fill('');
    await page.getByRole('button', { name: 'Select none' }).click();
    await page.getByText(`0 of ${total} selected`).waitFor();
    await page.getByLabel('reward.created').check();
    for (const device of [PHONE, DESKTOP]) {
      await page.setViewportSize(device.viewport);
      await expectAccessible(page, `Webhooks, add an endpoint (${device === PHONE ? 'phone' : 'desktop'})`);
      await expectNoSidewaysScroll(page, `Webhooks (${device === PHONE ? 'phone' : 'desktop'})`);
    }
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const secret = (await page.getByLabel('Secret', { exact: true }).textContent())!.trim();
    expect(secret).toMatch(/^whsec_/);
    await page.getByRole('button', { name: 'Done' }).click();
    // The endpoint's actions are in its menu, named after it.
    await page.getByRole('button', { name: `Actions for http://127.0.0.1:${receiver.port}/dash-hook` }).click();
    await page.getByRole('menuitem', { name: 'Send test' }).click();
    await page.getByText('Test event queued.').waitFor();
    const ping = await eventually(async () => receiver.received.find((r) => r.path === '/dash-hook' && r.json?.type === 'ping'), 20_000);
    expect(ping.headers['x-webhook-signature']).toMatch(/^v1=[0-9a-f]{64}$/);
    const expected = createHmac('sha256', secret).update(`${ping.headers['x-webhook-timestamp']}.${ping.body}`).digest('hex');
    expect(ping.headers['x-webhook-signature']).toBe(`v1=${expected}`);
    const endpoints = (await t.api.as(m.key).get('/v1/webhook-endpoints')).body.webhookEndpoints;
    expect(endpoints.find((e: any) => e.url.endsWith('/dash-hook')).events).toEqual(['reward.created']);
    await context.close();
  });

  it('invites a colleague, who accepts in another browser and appears in the team', async () => {
    const { context, page } = await signedIn();
    await nav(page, 'Team').click();
    await page.getByLabel('E-mail to invite').fill('colleague@example.com');
    await page.getByLabel('Role').selectOption('developer');
    // The chosen role says what it may do.
    expect(await page.locator('#invite-role-description').textContent()).toContain('sends, cancels and resends rewards');
    await page.getByRole('button', { name: 'Invite' }).click();
    await page.getByText('Invitation sent to colleague@example.com.').waitFor();
    const first = await smtp.waitFor((mail) => mail.to.includes('colleague@example.com'));
    const linkOf = (mail: { text?: string; html?: string }) => /(http:\/\/[^\s"<]+\/dashboard\/invitations\/[A-Za-z0-9_-]+)/.exec(mail.text ?? mail.html ?? '')![1];
    // Sent again: a new link arrives and the first stops working.
    await page.getByRole('button', { name: 'Resend invitation' }).click();
    await page.getByRole('button', { name: 'Yes, resend invitation' }).click();
    await page.getByText('Invitation sent again to colleague@example.com.').waitFor();
    const mail = await smtp.waitFor((mail) => mail.to.includes('colleague@example.com') && linkOf(mail) !== linkOf(first));
    expect(mail.text).toContain(`${m.email.toLowerCase()} invited you to join Acme Inc as developer.`);
    const link = linkOf(mail);
    expect((await fetch(linkOf(first).replace('/dashboard/invitations/', '/dashboard/api/invitations/'))).status).toBe(404);
    for (const device of [PHONE, DESKTOP]) {
      await page.setViewportSize(device.viewport);
      await expectAccessible(page, `Team with an open invitation (${device === PHONE ? 'phone' : 'desktop'})`);
      await expectNoSidewaysScroll(page, `Team (${device === PHONE ? 'phone' : 'desktop'})`);
    }

    const other = await offlineContext(browser, t.baseUrl, PHONE);
    const theirs = await other.context.newPage();
    await theirs.goto(link);
    await theirs.getByRole('heading', { name: 'Join Acme Inc' }).waitFor();
    await theirs.getByLabel('Choose a password').fill('a long and private passphrase');
    await theirs.getByRole('button', { name: 'Accept invitation' }).click();
    await theirs.getByRole('heading', { name: 'Overview' }).waitFor();
    // A developer is offered Send and Developers but not Team or Audit log.
    await nav(theirs, 'Send').waitFor();
    await expect(nav(theirs, 'Team').count()).resolves.toBe(0);
    other.external.forEach((url) => outside.push(url));
    await other.context.close();

    await page.reload();
    await page.getByRole('cell', { name: 'colleague@example.com' }).waitFor();
    await context.close();
  });

  it('a viewer is offered no send, top-up or key controls', async () => {
    const invite = await fetch(`${t.baseUrl}/dashboard/api/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: t.baseUrl },
      body: JSON.stringify({ email: m.email, password: m.password }),
    });
    const cookie = invite.headers.get('set-cookie')!.split(';')[0];
    const { csrfToken } = (await invite.json()) as { csrfToken: string };
    const created = await fetch(`${t.baseUrl}/dashboard/api/invitations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie, 'x-csrf-token': csrfToken, origin: t.baseUrl },
      body: JSON.stringify({ email: 'viewer@example.com', role: 'viewer' }),
    });
    expect(created.status).toBe(201);
    const mail = await smtp.waitFor((mail) => mail.to.includes('viewer@example.com'));
    const token = /\/dashboard\/invitations\/([A-Za-z0-9_-]+)/.exec(mail.text ?? mail.html ?? '')![1];
    const accepted = await fetch(`${t.baseUrl}/dashboard/api/invitations/${token}/accept`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: t.baseUrl },
      body: JSON.stringify({ password: 'viewer passphrase that is long' }),
    });
    expect(accepted.status).toBe(201);

    const { context, page } = await signedIn(DESKTOP, { email: 'viewer@example.com', password: 'viewer passphrase that is long' });
    const links = await page.getByRole('navigation', { name: 'Main' }).getByRole('link').allTextContents();
    expect(links).toEqual(['Overview', 'Rewards', 'Approvals', 'Catalog', 'Wallet', 'Reports', 'Webhooks', 'Settings']);
    await nav(page, 'Wallet').click();
    await page.getByRole('heading', { name: 'Wallet' }).waitFor();
    await expect(page.getByRole('button', { name: 'Top up' }).count()).resolves.toBe(0);
    await nav(page, 'Webhooks').click();
    await expect(page.getByRole('button', { name: 'Add endpoint' }).count()).resolves.toBe(0);
    // A page the role may not use is not rendered when reached by its address either.
    await page.goto(`${t.baseUrl}/dashboard/send`);
    await page.getByText('Your role in this account cannot use this page.').waitFor();
    await expect(page.getByRole('button', { name: 'Send reward' }).count()).resolves.toBe(0);
    await context.close();
  });

  it('a branding change shows in the live preview before it is saved, and is saved', async () => {
    const { context, page } = await signedIn();
    await nav(page, 'Settings').click();
    await page.getByLabel('Sender name').fill('Acme People Team');
    const preview = page.getByLabel('Preview');
    await preview.getByText('Acme People Team sent you a reward').waitFor();
    await page.getByRole('button', { name: 'Save branding' }).click();
    await page.getByText('Branding saved.').waitFor();
    expect((await t.api.as(m.key).get('/v1/account')).body.account.senderName).toBe('Acme People Team');
    writeFileSync(artifact('dashboard-settings-preview.png'), await page.screenshot({ fullPage: true }));
    await context.close();
  }, 90_000);

  it('sets low-balance alert thresholds per currency in Settings, at phone and desktop width, accessible; a viewer is not offered them', async () => {
    const stored = async () => (await t.api.as(m.key).get('/v1/account/alert-settings')).body.alertSettings.lowBalance;
    for (const [device, name, usd, eur, expected] of [
      [PHONE, 'phone', '250', '20', [{ currency: 'EUR', thresholdCents: 2_000 }, { currency: 'USD', thresholdCents: 25_000 }]],
      [DESKTOP, 'desktop', '300.50', '', [{ currency: 'USD', thresholdCents: 30_050 }]],
    ] as const) {
      const { context, page } = await signedIn(device);
      await nav(page, 'Settings').click();
      const alerts = page.getByRole('region', { name: 'Low-balance alerts' });
      await alerts.getByLabel('Alert below (USD)').fill(usd);
      await alerts.getByLabel('Alert below (EUR)').fill(eur);
      await alerts.getByRole('button', { name: 'Save alerts' }).click();
      await alerts.getByText('Alerts saved.').waitFor();
      expect(await stored()).toEqual(expected);
      await alerts.getByText(`Now: below ${money(expected.find((e) => e.currency === 'USD')!.thresholdCents, 'USD')}`).waitFor();
      await expectAccessible(page, `Settings, alerts (${name})`);
      await expectNoSidewaysScroll(page, `Settings, alerts (${name})`);
      await page.screenshot({ path: artifact(`dashboard-settings-alerts-${name}.png`), fullPage: true });
      // An amount that is not one is refused by the form, and nothing changes.
      await alerts.getByLabel('Alert below (USD)').fill('lots');
      await alerts.getByRole('button', { name: 'Save alerts' }).click();
      await alerts.getByRole('alert').getByText('USD: enter an amount').waitFor();
      expect(await stored()).toEqual(expected);
      await context.close();
    }
    // A viewer (no account:write) sees Settings without the alerts.
    const viewer = await addMember(t, m.accountId, 'viewer');
    const { context, page } = await signedIn(DESKTOP, viewer);
    await nav(page, 'Settings').click();
    await page.getByRole('heading', { level: 2, name: 'Password' }).waitFor();
    await expect(page.getByRole('region', { name: 'Low-balance alerts' }).count()).resolves.toBe(0);
    await context.close();
  }, 120_000);

  it('an admin blocks a brand in Catalog rules and it vanishes from the catalog', async () => {
    const { context, page } = await signedIn();
    const catalog = (await t.api.as(m.key).get('/v1/catalog')).body.brands as { brandKey: string; name: string }[];
    const victim = catalog.find((b) => ![picks.fixedUsd.brandKey, picks.variableUsd.brandKey].includes(b.brandKey))!;
    await nav(page, 'Catalog').click();
    await page.getByRole('heading', { level: 2, name: victim.name }).waitFor();
    await page.getByLabel(`Block ${victim.name}`, { exact: true }).check();
    await page.getByRole('button', { name: 'Save catalog rules' }).click();
    await page.getByText('Catalog rules saved.').waitFor();
    await page.getByRole('heading', { level: 2, name: victim.name }).waitFor({ state: 'detached' });
    expect((await t.api.as(m.key).get('/v1/account/catalog-rules')).body.catalogRules.blockedBrandKeys).toEqual([victim.brandKey]);
    expect((await t.api.as(m.key).get(`/v1/catalog/brands/${victim.brandKey}`)).status).toBe(404);
    // Still listed in the rules (by key, as the catalog no longer shows it), ticked, to be unblocked.
    await expect(page.getByLabel(`Block ${victim.brandKey}`, { exact: true }).isChecked()).resolves.toBe(true);
    await context.close();
  }, 90_000);

  /** The account's wallets by currency, as the API reports them. */
  const walletsOf = async () =>
    Object.fromEntries(((await t.api.as(m.key).get('/v1/wallets')).body.wallets as { currency: string; availableCents: number }[]).map((w) => [w.currency, w.availableCents]));
  /** What the browser prints for `cents` of `currency` (Chromium's en-US, as the page formats it). */
  const money = (cents: number, currency: string) => new Intl.NumberFormat('en-US', { style: 'currency', currency }).format(cents / 100);
  const balanceCard = (page: Page, currency: string) => page.getByRole('listitem', { name: new RegExp(`^${currency}`) });

  it('balances per currency, a EUR top-up and a USD → GBP conversion through the quote screen, at phone and desktop width', async () => {
    const usdToGbp = publishedSandboxRates().USD.GBP;
    for (const [device, name] of [
      [PHONE, 'phone'],
      [DESKTOP, 'desktop'],
    ] as const) {
      const { context, page } = await signedIn(device);
      await nav(page, 'Wallet').click();
      // The primary wallet comes first, marked so.
      await expect(page.locator('.balances > li').first().getByRole('heading').textContent()).resolves.toBe('USD primary');

      // A top-up in EUR: the currency is chosen, the amount is labelled and confirmed in it.
      const before = await walletsOf();
      await page.getByLabel('Top-up currency').selectOption('EUR');
      await page.getByLabel('Top up amount (EUR)').fill('50');
      await page.getByRole('button', { name: 'Top up', exact: true }).click();
      await page.getByText('Added €50.00.').waitFor();
      const afterTopUp = await walletsOf();
      expect(afterTopUp.EUR).toBe((before.EUR ?? 0) + 5_000);
      expect(afterTopUp.USD).toBe(before.USD);
      await balanceCard(page, 'EUR').getByText(money(afterTopUp.EUR, 'EUR'), { exact: true }).waitFor();

      // USD → GBP: the quote shows the rate, both amounts and the seconds it binds for, and moves nothing.
      await page.getByRole('form', { name: 'Convert' }).getByLabel('From', { exact: true }).selectOption('USD');
      await page.getByRole('form', { name: 'Convert' }).getByLabel('To', { exact: true }).selectOption('GBP');
      await page.getByLabel('Amount to receive (GBP)').fill('20');
      await page.getByRole('button', { name: 'Get quote' }).click();
      const quote = page.getByRole('region', { name: 'Quote' });
      const pay = expectedFromAmount(2_000, usdToGbp);
      await quote.getByText(`1 USD = ${Number(usdToGbp)} GBP`).waitFor();
      await quote.getByText(money(pay, 'USD'), { exact: true }).waitFor();
      await quote.getByText('£20.00', { exact: true }).waitFor();
      const seconds = Number((await quote.getByRole('timer').textContent())!.replace(' s', ''));
      expect(seconds).toBeGreaterThanOrEqual(50);
      expect(seconds).toBeLessThanOrEqual(60);
      expect(await walletsOf()).toEqual(afterTopUp);
      await page.screenshot({ path: artifact(`dashboard-wallet-quote-${name}.png`), fullPage: true });
      await expectAccessible(page, `Wallet with a quote (${name})`);
      await expectNoSidewaysScroll(page, `Wallet with a quote (${name})`);

      await quote.getByRole('button', { name: 'Confirm conversion' }).click();
      await page.getByText(`Converted ${money(pay, 'USD')} into £20.00.`).waitFor();
      const converted = await walletsOf();
      expect(converted).toEqual({ ...afterTopUp, USD: afterTopUp.USD - pay, GBP: (afterTopUp.GBP ?? 0) + 2_000 });
      // The balances on screen follow without a reload.
      await balanceCard(page, 'GBP').getByText(money(converted.GBP, 'GBP'), { exact: true }).waitFor();
      await balanceCard(page, 'USD').getByText(money(converted.USD, 'USD'), { exact: true }).first().waitFor();

      // The transactions carry their currency and can be narrowed to one.
      const table = page.getByRole('region', { name: /^Table/ });
      await table.getByRole('cell', { name: 'TOPUP' }).first().waitFor();
      await page.getByLabel('Currency', { exact: true }).selectOption('GBP');
      // The unfiltered page stays on screen until the GBP one arrives: its top-ups leave with it.
      await table.getByRole('cell', { name: 'TOPUP' }).first().waitFor({ state: 'detached' });
      await table.getByRole('cell', { name: 'CONVERSION_IN' }).first().waitFor();
      const currencies = await table.locator('tbody tr td:nth-child(4)').allTextContents();
      expect(currencies.length).toBeGreaterThan(0);
      expect(new Set(currencies)).toEqual(new Set(['GBP']));
      await expect(table.getByRole('cell', { name: 'TOPUP' }).count()).resolves.toBe(0);
      await page.getByLabel('Currency', { exact: true }).selectOption('');
      await table.getByRole('cell', { name: 'CONVERSION_OUT' }).first().waitFor();
      await expectAccessible(page, `Wallet after a conversion (${name})`);
      await expectNoSidewaysScroll(page, `Wallet after a conversion (${name})`);

      // The Overview shows every wallet, each in its own currency.
      await nav(page, 'Overview').click();
      for (const [currency, cents] of Object.entries(converted)) await balanceCard(page, currency).getByText(money(cents, currency), { exact: true }).first().waitFor();
      await page.screenshot({ path: artifact(`dashboard-overview-currencies-${name}.png`), fullPage: true });
      await expectAccessible(page, `Overview with three currencies (${name})`);
      await expectNoSidewaysScroll(page, `Overview with three currencies (${name})`);
      await context.close();
    }
  }, 180_000);

  it('a quote past its seconds cannot be confirmed and a new one is asked for; refusals show by the button', async () => {
    // The page's clock is Playwright's, so the quote's minute can pass without waiting for it.
    const { context, page } = await signedIn(DESKTOP, undefined, (p) => p.clock.install());
    await nav(page, 'Wallet').click();
    const quote = page.getByRole('region', { name: 'Quote' });
    await page.getByRole('form', { name: 'Convert' }).getByLabel('From', { exact: true }).selectOption('USD');
    await page.getByRole('form', { name: 'Convert' }).getByLabel('To', { exact: true }).selectOption('GBP');
    await page.getByLabel('Amount to receive (GBP)').fill('10');
    await page.getByRole('button', { name: 'Get quote' }).click();
    await quote.getByRole('button', { name: 'Confirm conversion' }).waitFor();
    const before = await walletsOf();

    await page.clock.fastForward(61_000);
    await quote.getByText('This quote has expired.', { exact: false }).waitFor();
    await expect(quote.getByRole('timer').textContent()).resolves.toBe('0 s');
    await expect(quote.getByRole('button', { name: 'Confirm conversion' }).count()).resolves.toBe(0);
    expect(await walletsOf()).toEqual(before);

    // The new quote binds for a minute from now, although the page's clock is now a minute ahead of the service's.
    await quote.getByRole('button', { name: 'Get a new quote' }).click();
    await quote.getByRole('button', { name: 'Confirm conversion' }).waitFor();
    expect(Number((await quote.getByRole('timer').textContent())!.replace(' s', ''))).toBeGreaterThanOrEqual(50);

    // The service's own minute is what binds: past it, Confirm is refused by the button and a new quote offered.
    clock.advance(61_000);
    try {
      await quote.getByRole('button', { name: 'Confirm conversion' }).click();
      await quote.getByRole('alert').getByText(/expired/i).waitFor();
      await quote.getByRole('button', { name: 'Get a new quote' }).waitFor();
    } finally {
      clock.reset();
    }
    expect(await walletsOf()).toEqual(before);

    // More than the USD wallet holds: quoted, then refused at Confirm with the API's reason, nothing moved.
    const pay = expectedFromAmount(1_000_000_00, publishedSandboxRates().USD.GBP);
    expect(pay).toBeGreaterThan(before.USD);
    await page.getByLabel('Amount to receive (GBP)').fill('1000000');
    await page.getByRole('button', { name: 'Get quote' }).click();
    await quote.getByText(money(pay, 'USD'), { exact: true }).waitFor();
    await quote.getByRole('button', { name: 'Confirm conversion' }).click();
    await quote.getByRole('alert').getByText(/USD/).waitFor();
    // An amount over the limit is refused before any quote, next to the amount.
    await page.getByLabel('Amount to receive (GBP)').fill('2000000');
    await page.getByRole('button', { name: 'Get quote' }).click();
    await page.locator('.field-error').filter({ hasText: /toAmountCents|100000000|1,000,000/ }).waitFor();
    await expect(quote.count()).resolves.toBe(0);
    expect(await walletsOf()).toEqual(before);
    await expectAccessible(page, 'Wallet with refusals');
    await context.close();
  }, 90_000);

  it('money you can see: the Overview chart with its table, date range and filters kept in the address, a reward’s money trail, at phone and desktop width', async () => {
    const sent = await t.api.as(m.key).post('/v1/rewards', { type: 'CHOICE', valueCents: 1_700, campaign: 'trail', recipient: { email: 'trail@example.com', firstName: 'Tia' } });
    expect(sent.status).toBe(201);
    const id = sent.body.reward.id;
    expect((await t.api.as(m.key).post(`/v1/rewards/${id}/cancel`)).status).toBe(200);
    const today = new Date().toISOString().slice(0, 10);
    const daily = (await t.api.as(m.key).get('/v1/account/overview/daily?days=30')).body.series.find((s: any) => s.currency === 'USD');
    const todayCents = daily.days[29].sentCents;
    expect(todayCents).toBeGreaterThanOrEqual(1_700);
    for (const [device, name] of [
      [PHONE, 'phone'],
      [DESKTOP, 'desktop'],
    ] as const) {
      const { context, page } = await signedIn(device);
      // The chart, and the same figures as a table.
      await page.getByRole('img', { name: /sent in USD over the last 30 days/ }).waitFor();
      await page.getByText('USD per day as a table').click();
      const table = page.getByRole('table', { name: /Value sent per day in USD, last 30 days/ });
      await table.getByRole('row', { name: new RegExp(`${today} ${money(todayCents, 'USD').replace('$', '\\$')}`) }).waitFor();
      await page.getByRole('button', { name: 'Last 90 days' }).click();
      await page.getByRole('img', { name: /sent in USD over the last 90 days/ }).waitFor();
      await expectAccessible(page, `Overview chart (${name})`);
      await expectNoSidewaysScroll(page, `Overview chart (${name})`);
      await page.screenshot({ path: artifact(`dashboard-overview-chart-${name}.png`), fullPage: true });

      // Rewards: a campaign and a day range, kept in the address (a reload shows the same list).
      await nav(page, 'Rewards').click();
      await page.getByLabel('Campaign').fill('trail');
      await page.getByRole('button', { name: 'Search' }).click();
      await page.getByLabel('From', { exact: true }).fill(today);
      await page.getByLabel('To', { exact: true }).fill(today);
      await page.waitForURL((url) => url.searchParams.get('campaign') === 'trail' && url.searchParams.get('from') === today && url.searchParams.get('to') === today);
      await page.reload();
      await page.getByText('1 rewards').waitFor();
      await expect(page.getByLabel('Campaign').inputValue()).resolves.toBe('trail');
      await expectAccessible(page, `Rewards filters (${name})`);
      await expectNoSidewaysScroll(page, `Rewards filters (${name})`);

      // Wallet: the reward's movements by related id and kind.
      await page.goto(`${t.baseUrl}/dashboard/wallet?related_id=${id}&kind=RELEASE`);
      await page.getByRole('heading', { level: 1, name: 'Wallet' }).waitFor();
      await page.getByText(`Cancelled reward ${id}`).or(page.getByRole('cell', { name: 'RELEASE' })).first().waitFor();
      await expect(page.getByLabel('Kind').inputValue()).resolves.toBe('RELEASE');
      await expectAccessible(page, `Wallet filters (${name})`);
      await expectNoSidewaysScroll(page, `Wallet filters (${name})`);

      // The reward's money trail: held, returned, and its rows.
      await page.goto(`${t.baseUrl}/dashboard/rewards/${id}`);
      const trail = page.getByRole('region', { name: 'Money trail' });
      await trail.getByRole('cell', { name: 'HOLD' }).waitFor();
      await trail.getByRole('cell', { name: 'RELEASE' }).waitFor();
      await expect(trail.locator('dd').nth(0).textContent()).resolves.toBe(money(1_700, 'USD'));
      await expect(trail.locator('dd').nth(2).textContent()).resolves.toBe(money(1_700, 'USD'));
      await expectAccessible(page, `Money trail (${name})`);
      await expectNoSidewaysScroll(page, `Money trail (${name})`);
      await page.screenshot({ path: artifact(`dashboard-money-trail-${name}.png`), fullPage: true });
      await context.close();
    }
  }, 180_000);

  it('filters changed in the same instant all stay, in the address and in the list it asks for, at phone and desktop width', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const tomorrow = new Date(Date.parse(`${today}T00:00:00.000Z`) + 86_400_000).toISOString();
    for (const [device, name] of [
      [PHONE, 'phone'],
      [DESKTOP, 'desktop'],
    ] as const) {
      const { context, page } = await signedIn(device);
      await nav(page, 'Rewards').click();
      await page.getByRole('heading', { level: 1, name: 'Rewards' }).waitFor();
      await page.getByLabel('Status', { exact: true }).waitFor();
      // The first list request with the range's end is the one after the last of the three changes.
      const listed = page.waitForRequest((request) => new URL(request.url()).pathname === '/v1/rewards' && new URL(request.url()).searchParams.has('created_lt'));
      // Status, From and To changed in one task, as a person's input events go: the page renders none of them
      // before the next, so each change must build on the address the one before asked for, not the rendered one.
      await page.evaluate((day) => {
        const doc = (globalThis as any).document;
        const change = (id: string, value: string, event: string) => {
          const field = doc.getElementById(id);
          // The prototype's setter, so that React sees the value as the person's (a plain assignment it ignores).
          Object.getOwnPropertyDescriptor(Object.getPrototypeOf(field), 'value')!.set!.call(field, value);
          field.dispatchEvent(new (globalThis as any).Event(event, { bubbles: true }));
        };
        change('status', 'CANCELED', 'change');
        change('created-from', day, 'input');
        change('created-to', day, 'input');
      }, today);
      const query = new URL((await listed).url()).searchParams;
      expect([query.get('status'), query.get('created_gte'), query.get('created_lt')]).toEqual(['CANCELED', `${today}T00:00:00.000Z`, tomorrow]);
      const address = new URL(page.url()).searchParams;
      expect([address.get('status'), address.get('from'), address.get('to')]).toEqual(['CANCELED', today, today]);
      await expect(page.getByLabel('Status', { exact: true }).inputValue()).resolves.toBe('CANCELED');
      await expect(page.getByLabel('From', { exact: true }).inputValue()).resolves.toBe(today);
      await expectAccessible(page, `Rewards, filters changed together (${name})`);
      await context.close();
    }
  });

  it('turns on two-factor sign-in; signing in then asks for the code', async () => {
    const { context, page } = await signedIn();
    await nav(page, 'Settings').click();
    // The section says whether it is on, and offers only what applies.
    await page.locator('#two-factor-state').filter({ hasText: 'Two-factor sign-in is off' }).waitFor();
    expect(await page.getByRole('button', { name: 'Turn off two-factor sign-in' }).count()).toBe(0);
    await page.getByRole('button', { name: 'Set up two-factor sign-in' }).click();
    const secret = (await page.getByText(/^Secret:/).locator('code').textContent())!.trim();
    await expect(page.getByRole('img', { name: 'QR code for your authenticator app' }).isVisible()).resolves.toBe(true);
    clock.freeze();
    await page.getByLabel('Code from the app').fill(totp(secret, clock.now().getTime()));
    await page.getByRole('button', { name: 'Turn on two-factor sign-in' }).click();
    await page.getByRole('status').filter({ hasText: 'Two-factor sign-in is on' }).waitFor();
    await page.locator('#two-factor-state').filter({ hasText: 'Two-factor sign-in is on' }).waitFor();
    expect(await page.getByRole('button', { name: 'Set up two-factor sign-in' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Turn off two-factor sign-in' }).isVisible()).toBe(true);
    await context.close();

    const fresh = await offlineContext(browser, t.baseUrl, DESKTOP);
    const login = await fresh.context.newPage();
    await login.goto(`${t.baseUrl}/dashboard`);
    await login.getByLabel('E-mail').fill(m.email);
    await login.getByLabel('Password').fill(m.password);
    await login.getByRole('button', { name: 'Sign in' }).click();
    await login.getByLabel('Authentication code').waitFor();
    // The code used to turn it on may not be used again: the next 30 s step's code, at the service's next step.
    clock.advance(30_000);
    await login.getByLabel('Authentication code').fill(totp(secret, clock.now().getTime()));
    await login.getByRole('button', { name: 'Sign in' }).click();
    await login.getByRole('heading', { name: 'Overview' }).waitFor();
    fresh.external.forEach((url) => outside.push(url));
    await fresh.context.close();
    clock.reset();
  }, 90_000);


});
