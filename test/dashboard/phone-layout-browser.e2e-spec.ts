import type { Browser, Page } from 'playwright-core';
import {
  accessibilityViolations,
  artifact,
  DESKTOP,
  expectAccessible,
  expectNoSidewaysScroll,
  launchChromium,
  mainNavigation,
  menuButton,
  navLink,
  PHONE,
  signInToDashboard,
} from '../support/browser';
import { choiceReward, fund } from '../support/rewards';
import { SeededMerchant, seedMerchant, startTestApp, TestApp } from '../support/test-app';

/**
 * The dashboard on a phone (docs/dashboard.md, Phone): the navigation is a compact "Menu" disclosure,
 * and a reward's page never scrolls sideways, whatever its address, ids and timeline. Times name
 * their zone (the viewer's).
 */
describe('dashboard at phone width, in a real browser (Debian chromium)', () => {
  let t: TestApp;
  let m: SeededMerchant;
  let browser: Browser;
  let rewardId: string;
  // As long as an address may be (64 + 1 + a long domain), with nowhere a browser would break it by itself.
  const longEmail = `${'a'.repeat(64)}@${'b'.repeat(60)}.${'c'.repeat(40)}.example.test`;
  const expiresAt = '2030-12-31T12:00:00Z';
  // New York in December is EST (UTC−5): 12:00 UTC reads 7:00 AM EST there.
  const inNewYork = { timezoneId: 'America/New_York', locale: 'en-US' };
  const RESENDS = 14;

  beforeAll(async () => {
    t = await startTestApp();
    m = await seedMerchant(t, { name: 'Acme Inc' });
    await fund(t, m, 100_000);
    const sent = await t.api.as(m.key).post(
      '/v1/rewards',
      choiceReward(2_500, {
        recipient: { email: longEmail, firstName: 'Maximiliana' },
        externalId: `order-${'9'.repeat(90)}`,
        campaign: `spring-${'x'.repeat(90)}`,
        expiresAt,
      }),
    );
    expect(sent.status).toBe(201);
    rewardId = sent.body.reward.id;
    // A long timeline: each resend adds `reward.resent`.
    for (let i = 0; i < RESENDS; i += 1) expect((await t.api.as(m.key).post(`/v1/rewards/${rewardId}/resend`)).status).toBe(200);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t.close();
  });

  const focused = (page: Page) => page.evaluate(() => {
    const active = (globalThis as any).document.activeElement;
    return active?.id || active?.textContent?.trim();
  });

  it('at 390 px the navigation is a Menu button that opens, closes on Escape, navigates and closes; axe clean open and closed', async () => {
    const { context, page } = await signInToDashboard(browser, t.baseUrl, { ...PHONE, ...inNewYork }, { email: m.email, password: m.password });
    const menu = menuButton(page);
    const rewards = mainNavigation(page).getByRole('link', { name: 'Rewards', exact: true });

    // Closed: one compact bar, no page links shown.
    expect(await menu.isVisible()).toBe(true);
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
    const controls = await menu.getAttribute('aria-controls');
    expect(controls).toBeTruthy();
    expect(await rewards.isVisible()).toBe(false);
    const closedHeight = (await mainNavigation(page).boundingBox())!.height;
    expect(closedHeight).toBeLessThan(70);
    await expectAccessible(page, 'Overview, menu closed (phone)');
    await expectNoSidewaysScroll(page, 'Overview, menu closed (phone)');

    // Open: the list the button controls shows every page, one a line.
    await menu.click();
    expect(await menu.getAttribute('aria-expanded')).toBe('true');
    expect(await page.locator(`#${controls}`).isVisible()).toBe(true);
    expect(await rewards.isVisible()).toBe(true);
    await expect(mainNavigation(page).getByRole('link').allTextContents()).resolves.toEqual(expect.arrayContaining(['Overview', 'Rewards', 'Send', 'Wallet', 'Settings']));
    await expectAccessible(page, 'Overview, menu open (phone)');
    await expectNoSidewaysScroll(page, 'Overview, menu open (phone)');
    await page.screenshot({ path: artifact('dashboard-phone-menu-open.png'), fullPage: true });

    // Escape closes it from a link inside, and the focus goes back to the button.
    await rewards.focus();
    await page.keyboard.press('Escape');
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
    expect(await rewards.isVisible()).toBe(false);
    expect(await focused(page)).toMatch(/^Menu/);

    // The keyboard opens it too; choosing a page closes it and moves the focus to the new page's content.
    await page.keyboard.press('Enter');
    expect(await menu.getAttribute('aria-expanded')).toBe('true');
    await rewards.click();
    await page.getByRole('heading', { level: 1, name: 'Rewards' }).waitFor();
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
    expect(await rewards.isVisible()).toBe(false);
    expect(await focused(page)).toBe('main');
    await expect(page.title()).resolves.toBe('Rewards · Rewards');
    await page.getByRole('link', { name: longEmail }).waitFor();
    await expectNoSidewaysScroll(page, 'Rewards list with a long address (phone)');

    // The tests' own helper goes the same way (opens the menu, follows the link).
    await navLink(page, 'Settings', { exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Settings' }).waitFor();
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
    await context.close();
  }, 120_000);

  it('a reward with a very long address, ids and timeline fits 390 px: wide tables scroll in their own labelled, focusable region; times name the zone', async () => {
    const { context, page } = await signInToDashboard(browser, t.baseUrl, { ...PHONE, ...inNewYork }, { email: m.email, password: m.password });
    await page.goto(`${t.baseUrl}/dashboard/rewards/${rewardId}`);
    await page.getByRole('heading', { level: 1, name: new RegExp(longEmail) }).waitFor();
    const trail = page.getByRole('region', { name: /^Money trail \(scrolls sideways/ });
    await trail.waitFor();
    const timeline = page.locator('.timeline li');
    expect(await timeline.count()).toBeGreaterThanOrEqual(RESENDS + 1);

    // The expiry in the viewer's zone with the zone named; the exact instant in `datetime`.
    const expiry = page.locator(`time[datetime="${new Date(expiresAt).toISOString()}"]`);
    expect(await expiry.textContent()).toBe('Dec 31, 2030, 7:00 AM EST');
    // Every time shown on the page names its zone.
    const times = await page.locator('time').allTextContents();
    expect(times.length).toBeGreaterThan(RESENDS);
    expect(times.filter((text) => !/ (EST|EDT)$/.test(text))).toEqual([]);

    // The tables: each a region of its own name, reachable by keyboard, that scrolls inside itself.
    expect(await trail.getAttribute('tabindex')).toBe('0');
    // A CHOICE reward nobody has picked from yet: "No cards yet." and no empty table region.
    await page.getByText('No cards yet.').waitFor();
    await expect(page.getByRole('region', { name: /^Cards \(scrolls sideways/ }).count()).resolves.toBe(0);
    await trail.focus();
    expect(await page.evaluate(() => (globalThis as any).document.activeElement?.getAttribute('aria-label'))).toMatch(/^Money trail/);

    await expectNoSidewaysScroll(page, 'Reward with a long address and timeline (phone)');
    await expectAccessible(page, 'Reward with a long address and timeline (phone)');
    await page.screenshot({ path: artifact('dashboard-reward-long-phone.png'), fullPage: true });
    await context.close();
  }, 120_000);

  it('on a desktop the sidebar shows every page without a menu button, and the same reward fits', async () => {
    const { context, page } = await signInToDashboard(browser, t.baseUrl, { ...DESKTOP, ...inNewYork }, { email: m.email, password: m.password });
    expect(await menuButton(page).isVisible()).toBe(false);
    const rewards = mainNavigation(page).getByRole('link', { name: 'Rewards', exact: true });
    expect(await rewards.isVisible()).toBe(true);
    // A sidebar: the navigation sits left of the content, as tall as the page.
    const nav = (await mainNavigation(page).boundingBox())!;
    const main = (await page.locator('#main').boundingBox())!;
    expect(nav.x + nav.width).toBeLessThanOrEqual(main.x);
    await rewards.click();
    await page.getByRole('heading', { level: 1, name: 'Rewards' }).waitFor();
    await page.goto(`${t.baseUrl}/dashboard/rewards/${rewardId}`);
    await page.getByRole('heading', { level: 1, name: new RegExp(longEmail) }).waitFor();
    await page.getByRole('region', { name: /^Money trail \(scrolls sideways/ }).waitFor();
    await expectNoSidewaysScroll(page, 'Reward with a long address and timeline (desktop)');
    await expectAccessible(page, 'Reward with a long address and timeline (desktop)');
    await page.screenshot({ path: artifact('dashboard-reward-long-desktop.png'), fullPage: true });
    await context.close();
  }, 120_000);

  // Every "axe clean" in the browser suites rests on this scan: it must report a page's faults, and again on a
  // new document of the same tab (it is loaded into each document once).
  it('the accessibility scan the suites use reports an unnamed button, an image without text and faint text', async () => {
    const page = await browser.newPage();
    await page.setContent('<html lang="en"><title>Faults</title><main><h1>Faults</h1><button></button><img src="data:,"><p style="color:#ddd;background:#fff">faint</p></main></html>');
    expect(await accessibilityViolations(page)).toEqual(['button-name: button', 'color-contrast: p', 'image-alt: img']);
    await page.setContent('<html lang="en"><title>Fixed</title><main><h1>Fixed</h1><button>Send</button></main></html>');
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.close();
  });
});
