import type { Browser, BrowserContext, Page } from 'playwright-core';
import { DataSource } from 'typeorm';
import { artifact, cardPicker, DESKTOP, expectAccessible, expectNoSidewaysScroll, launchChromium, navLink, PHONE, signInToDashboard } from '../support/browser';
import { expectLedgerInvariants } from '../support/ledger-invariants';
import { catalogPicks, CatalogPicks, fund } from '../support/rewards';
import { eventually } from '../support/processes';
import { isolatedDatabase, SeededMerchant, seedMerchant, startTestApp, TestApp } from '../support/test-app';

/**
 * The widgets taken from kept libraries (docs/dashboard.md, Widgets from kept libraries), in a real
 * browser at phone and desktop width, driven from the keyboard: the card picker (Radix popover with a
 * cmdk list) finds a card by part of its name or by its utid and the reward is sent with that card;
 * a reward row's and a webhook endpoint's Actions menus (Radix dropdown menu) open, close with Escape,
 * grey out what the row does not allow, and cancel, pause or delete after a confirmation. Axe runs with
 * the picker open and with each menu open.
 */
describe('dashboard: card picker and row Actions menus (Debian chromium)', () => {
  let t: TestApp;
  let m: SeededMerchant;
  let picks: CatalogPicks;
  let browser: Browser;
  const outside: { url: string; type: string }[] = [];
  const devices = [
    ['phone', PHONE],
    ['desktop', DESKTOP],
  ] as const;

  async function signedIn(device: typeof DESKTOP | typeof PHONE): Promise<{ context: BrowserContext; page: Page }> {
    const { context, page, external } = await signInToDashboard(browser, t.baseUrl, device, m);
    page.on('close', () => external.forEach((url) => outside.push(url)));
    return { context, page };
  }
  /** What has the keyboard focus: its id, aria-label, text and role. */
  type Focus = { id: string; label: string; text: string; role: string };
  const focused = (page: Page): Promise<Focus> =>
    page.evaluate(() => {
      const el = (globalThis as any).document.activeElement;
      return { id: el?.id ?? '', label: el?.getAttribute('aria-label') ?? '', text: el?.textContent ?? '', role: el?.getAttribute('role') ?? '' };
    });
  /** Focus moves in effects after a popover opens or closes: waits up to 5 s for it to fit `expected` (a string is matched whole). */
  async function expectFocus(page: Page, expected: { [K in keyof Focus]?: string | RegExp }): Promise<void> {
    const fits = (f: Focus) => (Object.keys(expected) as (keyof Focus)[]).every((k) => (typeof expected[k] === 'string' ? f[k] === expected[k] : expected[k]!.test(f[k])));
    try {
      await eventually(async () => fits(await focused(page)), 5_000);
    } catch {
      expect({ focused: await focused(page) }).toEqual({ focused: expected });
    }
  }

  beforeAll(async () => {
    t = await startTestApp({ env: await isolatedDatabase() });
    m = await seedMerchant(t, { name: 'Widgets Inc' });
    await fund(t, m, 100_000);
    picks = await catalogPicks(t, m.key);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await expectLedgerInvariants(t.app.get(DataSource), m.accountId);
    await t?.close();
  });
  afterEach(() => expect(outside).toEqual([]));

  it.each(devices)('at %s width: the card picker finds a card by part of its name from the keyboard, and the reward is sent with that utid', async (name, device) => {
    const catalog = (await t.api.as(m.key).get('/v1/catalog')).body.brands as { name: string; items: { utid: string; rewardName: string }[] }[];
    const brand = catalog.find((b) => b.items.some((i) => i.utid === picks.fixedUsd.utid))!;
    const card = brand.items.find((i) => i.utid === picks.fixedUsd.utid)!;
    // Part of the name: its first word, the brand's (a short query that other cards also match).
    const part = card.rewardName.split(' ')[0];

    const { context, page } = await signedIn(device);
    await navLink(page, 'Send', { exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Send' }).waitFor();
    await page.getByLabel('Recipient e-mail').fill(`picked.${name}@example.com`);
    await page.getByLabel('First name').fill('Pia');

    // The picker is a button named by its label and what it holds; the down arrow opens it, with the search focused.
    const picker = cardPicker(page, 'Gift card');
    await expect(picker.button.getAttribute('aria-label')).resolves.toBe('Gift card: Choose a card');
    await picker.button.focus();
    await page.keyboard.press('ArrowDown');
    await picker.options.first().waitFor();
    await expectFocus(page, { role: 'combobox' });
    const all = await picker.options.count();
    // Each card shows its value with its currency and its utid.
    await expect(picker.options.filter({ hasText: card.utid }).textContent()).resolves.toMatch(new RegExp(`\\$[0-9.,]+ USD · ${card.utid}`));

    await page.keyboard.type(part.toLowerCase());
    await eventually(async () => (await picker.options.count()) < all);
    for (const text of await picker.options.allTextContents()) expect(text.toLowerCase()).toContain(part.toLowerCase());
    await page.screenshot({ path: artifact(`dashboard-card-picker-${name}.png`) });
    await expectAccessible(page, `Send, card picker open (${name})`);
    await expectNoSidewaysScroll(page, `Send, card picker open (${name})`);

    // The arrow keys move the highlight (aria-selected) to the card; Enter chooses it and closes the list.
    const target = picker.options.filter({ hasText: card.utid });
    for (let moves = 0; (await target.getAttribute('aria-selected')) !== 'true'; moves++) {
      expect(moves).toBeLessThan(all);
      await page.keyboard.press('ArrowDown');
    }
    await page.keyboard.press('Enter');
    await picker.popover.waitFor({ state: 'detached' });
    // Focus is back on the button, which names the card chosen; the amount of a one-value card is filled in.
    await expectFocus(page, { label: new RegExp(card.utid) });
    await expect(picker.button.getAttribute('aria-label')).resolves.toContain(`${brand.name}: ${card.rewardName}`);
    await expect(page.getByLabel(/^Amount/).inputValue()).resolves.toBe((picks.fixedUsd.valueCents / 100).toFixed(2));
    await page.getByRole('button', { name: `Copy the utid ${card.utid}` }).waitFor();

    await page.getByRole('button', { name: 'Send reward' }).click();
    const confirm = page.getByRole('dialog', { name: 'Send this reward?' });
    await expect(confirm.textContent()).resolves.toContain(`(${card.utid})`);
    await confirm.getByRole('button', { name: /^Send \$/ }).click();
    await page.getByText(new RegExp(`^Reward of \\$[0-9.,]+ sent to picked\\.${name}@example\\.com\\.`)).waitFor();
    const sent = (await t.api.as(m.key).get('/v1/rewards?page_size=100')).body.rewards.filter((r: any) => r.recipientEmail === `picked.${name}@example.com`);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ type: 'FIXED', utid: card.utid, faceValueCents: picks.fixedUsd.valueCents, source: 'dashboard' });
    await context.close();
  }, 120_000);

  it.each(devices)('at %s width: the picker filters by code (utid, any case), says when nothing matches, and Escape leaves the choice as it was', async (name, device) => {
    const { context, page } = await signedIn(device);
    await navLink(page, 'Send', { exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Send' }).waitFor();

    for (const label of ['Gift card', 'Gift card for FIXED rows with an empty utid (optional)']) {
      const picker = cardPicker(page, label);
      const before = await picker.button.getAttribute('aria-label');
      await picker.button.click();
      await picker.search.fill(picks.fixedUsd.utid.toLowerCase());
      await eventually(async () => (await picker.options.count()) === 1);
      await expect(picker.options.first().textContent()).resolves.toContain(picks.fixedUsd.utid);
      // Another card's code finds that card only.
      await picker.search.fill(picks.fixedEur.utid);
      await picker.options.filter({ hasText: picks.fixedEur.utid }).waitFor();
      await eventually(async () => (await picker.options.count()) === 1);
      await expect(picker.options.first().textContent()).resolves.toContain(`EUR · ${picks.fixedEur.utid}`);
      await picker.search.fill('no card has this code');
      await picker.popover.getByText('No card matches.').waitFor();
      await expect(picker.options.count()).resolves.toBe(0);
      await expectAccessible(page, `${label}, picker with no match (${name})`);
      await page.keyboard.press('Escape');
      await picker.popover.waitFor({ state: 'detached' });
      await expectFocus(page, { label: before ?? '' });
      await expect(picker.button.getAttribute('aria-label')).resolves.toBe(before);
    }
    await expectNoSidewaysScroll(page, `Send, pickers closed (${name})`);
    await context.close();
  }, 120_000);

  it.each(devices)("at %s width: a reward row's Actions menu opens from the keyboard, Escape closes it, and it cancels the reward after a confirmation", async (name, device) => {
    const email = `row.${name}@example.com`;
    const created = await t.api.as(m.key).post('/v1/rewards', { type: 'CHOICE', valueCents: 1_500, recipient: { email, firstName: 'Rowan' } });
    expect(created.status).toBe(201);
    const id = created.body.reward.id as string;

    const { context, page } = await signedIn(device);
    await navLink(page, 'Rewards', { exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Rewards' }).waitFor();
    const trigger = page.getByRole('button', { name: `Actions for the reward to ${email}` });
    const menu = page.getByRole('menu');

    // Enter opens the menu with its first item focused; Escape closes it and gives focus back.
    await trigger.focus();
    await page.keyboard.press('Enter');
    await menu.waitFor();
    await expect(menu.getByRole('menuitem').allTextContents()).resolves.toEqual(['Open the reward', 'Resend e-mail', 'Cancel reward…']);
    await expectFocus(page, { role: 'menuitem', text: 'Open the reward' });
    await page.screenshot({ path: artifact(`dashboard-row-actions-${name}.png`) });
    await expectAccessible(page, `Rewards, row Actions menu open (${name})`);
    await expectNoSidewaysScroll(page, `Rewards, row Actions menu open (${name})`);
    await page.keyboard.press('Escape');
    await menu.waitFor({ state: 'detached' });
    await expectFocus(page, { id: `actions-${id}` });

    // The arrow keys reach "Cancel reward…"; it asks first, and "Cancel" in the dialog changes nothing.
    // Each key waits for the focus the last one moved, as a person does: Radix moves focus into the
    // menu in an effect after it mounts, and a key pressed before that lands on the trigger.
    await page.keyboard.press('ArrowDown');
    await menu.waitFor();
    await expectFocus(page, { role: 'menuitem', text: 'Open the reward' });
    await page.keyboard.press('ArrowDown');
    await expectFocus(page, { role: 'menuitem', text: 'Resend e-mail' });
    await page.keyboard.press('ArrowDown');
    await expectFocus(page, { text: 'Cancel reward…' });
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: `Cancel the reward to ${email}?` });
    await dialog.getByText('$15.00').first().waitFor();
    await dialog.getByRole('button', { name: 'Cancel', exact: true }).click();
    await dialog.waitFor({ state: 'detached' });
    expect((await t.api.as(m.key).get(`/v1/rewards/${id}`)).body.reward.status).toBe('SENT');
    await expectFocus(page, { id: `actions-${id}` });

    await page.keyboard.press('Enter');
    await menu.waitFor();
    await expectFocus(page, { role: 'menuitem', text: 'Open the reward' });
    await page.keyboard.press('End');
    await expectFocus(page, { text: 'Cancel reward…' });
    await page.keyboard.press('Enter');
    await dialog.getByRole('button', { name: 'Cancel reward' }).click();
    await page.getByText(`Cancelled the reward to ${email}.`).waitFor();
    expect((await t.api.as(m.key).get(`/v1/rewards/${id}`)).body.reward.status).toBe('CANCELED');
    // Focus is back on the row's button; the row now says Cancelled, and its menu greys out Resend and Cancel with why.
    await expectFocus(page, { id: `actions-${id}` });
    await page.locator('tbody tr').filter({ hasText: email }).getByText('Cancelled', { exact: true }).waitFor();
    await trigger.click();
    await menu.waitFor();
    await expect(menu.getByRole('menuitem', { name: /^Resend e-mail \(nothing left to use\)$/ }).getAttribute('aria-disabled')).resolves.toBe('true');
    await expect(menu.getByRole('menuitem', { name: /^Cancel reward… \(already redeemed, cancelled or expired\)$/ }).getAttribute('aria-disabled')).resolves.toBe('true');
    await page.keyboard.press('Escape');
    await menu.waitFor({ state: 'detached' });
    await context.close();
  }, 120_000);

  it.each(devices)("at %s width: a webhook endpoint's Actions menu pauses it, greys out Send test while paused, and deletes it after a confirmation", async (name, device) => {
    const url = `http://127.0.0.1:9/widgets-${name}`;
    const created = await t.api.as(m.key).post('/v1/webhook-endpoints', { url, events: [] });
    expect(created.status).toBe(201);
    const endpointId = created.body.webhookEndpoint.id as string;

    const { context, page } = await signedIn(device);
    await navLink(page, 'Webhooks', { exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
    const card = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: url }) });
    const trigger = page.getByRole('button', { name: `Actions for ${url}` });
    const menu = page.getByRole('menu');

    await trigger.focus();
    await page.keyboard.press('Enter');
    await menu.waitFor();
    await expect(menu.getByRole('menuitem').allTextContents()).resolves.toEqual(['Pause', 'Send test', 'Rotate secret…', 'Delete endpoint…']);
    await expectAccessible(page, `Webhooks, endpoint Actions menu open (${name})`);
    await expectNoSidewaysScroll(page, `Webhooks, endpoint Actions menu open (${name})`);
    await expectFocus(page, { role: 'menuitem', text: 'Pause' });
    await page.keyboard.press('Enter');
    await menu.waitFor({ state: 'detached' });
    await card.getByText(/^Paused/).first().waitFor();
    expect((await t.api.as(m.key).get(`/v1/webhook-endpoints/${endpointId}`)).body.webhookEndpoint.active).toBe(false);

    await trigger.click();
    await menu.waitFor();
    await expect(menu.getByRole('menuitem').allTextContents()).resolves.toEqual(['Resume', 'Send test (paused)', 'Rotate secret…', 'Delete endpoint…']);
    await expect(menu.getByRole('menuitem', { name: 'Send test (paused)' }).getAttribute('aria-disabled')).resolves.toBe('true');
    await menu.getByRole('menuitem', { name: 'Delete endpoint…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete this endpoint?' });
    await dialog.getByText(url).waitFor();
    await expectAccessible(page, `Webhooks, delete confirmation (${name})`);
    await dialog.getByRole('button', { name: 'Delete endpoint' }).click();
    await card.waitFor({ state: 'detached' });
    expect((await t.api.as(m.key).get('/v1/webhook-endpoints')).body.webhookEndpoints.some((e: any) => e.id === endpointId)).toBe(false);
    await context.close();
  }, 120_000);
});
