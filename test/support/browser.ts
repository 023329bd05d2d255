import axe from 'axe-core';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Browser, BrowserContext, chromium, Locator, Page } from 'playwright-core';
import { ROOT } from './processes';

/**
 * Debian's Chromium (apt-get install chromium); never a downloaded browser. The binary itself, not the
 * package's launcher script (/usr/bin/chromium): the script adds the desktop flags of /etc/chromium.d,
 * among them GPU rasterization, which without a GPU is SwiftShader emulating one in software. Measured on
 * the dashboard's page walk (docs/testing.md, "Where the time of a run goes"): a third less CPU.
 */
export const CHROMIUM = '/usr/lib/chromium/chromium';
export const ARTIFACTS = join(ROOT, 'test-artifacts');

export const PHONE = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true };
export const DESKTOP = { viewport: { width: 1280, height: 900 } };

export function launchChromium(): Promise<Browser> {
  mkdirSync(ARTIFACTS, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-quic',
      // The launcher adds it when /dev/shm is small (as in containers): shared memory in /tmp instead.
      '--disable-dev-shm-usage',
    ],
  });
}

/**
 * A context that is offline from the internet: anything not served by the app under test is
 * aborted and recorded, as on a machine with no network (brand images are remote https URLs).
 */
export async function offlineContext(browser: Browser, baseUrl: string, options: (typeof PHONE | typeof DESKTOP) & { locale?: string }) {
  const context: BrowserContext = await browser.newContext(options);
  const external: { url: string; type: string }[] = [];
  await context.route(
    (url) => url.origin !== new URL(baseUrl).origin && url.protocol !== 'data:',
    (route) => {
      external.push({ url: route.request().url(), type: route.request().resourceType() });
      return route.abort('internetdisconnected');
    },
  );
  return { context, external };
}

export const artifact = (name: string) => join(ARTIFACTS, name);

/**
 * The files the page saves (a CSV made in the browser, handed over as a blob link). Debian's headless
 * chromium starts no download for such a link under Playwright here (no `download` event), so the
 * page's own hand-over is watched instead: each anchor click with `download` set records the file
 * name and the blob's text. `next(save)` runs `save` (the click) and answers the file it saved.
 */
export async function watchSavedFiles(page: Page): Promise<{ next: (save: () => Promise<void>) => Promise<{ filename: string; text: string }> }> {
  await page.addInitScript(() => {
    const w = globalThis as any;
    w.__savedFiles = [];
    const blobs = new Map<string, Blob>();
    const create = w.URL.createObjectURL.bind(w.URL);
    w.URL.createObjectURL = (blob: Blob) => {
      const url = create(blob);
      blobs.set(url, blob);
      return url;
    };
    const click = w.HTMLAnchorElement.prototype.click;
    w.HTMLAnchorElement.prototype.click = function (this: any) {
      const blob = this.download ? blobs.get(this.href) : undefined;
      if (blob) void blob.text().then((text: string) => w.__savedFiles.push({ filename: this.download, text }));
      return click.call(this);
    };
  });
  return {
    async next(save) {
      const before = await page.evaluate(() => (globalThis as any).__savedFiles.length as number);
      await save();
      await page.waitForFunction((n) => (globalThis as any).__savedFiles.length > n, before);
      return page.evaluate((n) => (globalThis as any).__savedFiles[n] as { filename: string; text: string }, before);
    },
  };
}

/**
 * The serious and critical accessibility violations (axe) on the page as it stands, one line each
 * ("rule: targets"). axe-core runs in the page itself: its source is evaluated once per document (a
 * dashboard page change keeps the document, so later scans only run) and asked for violations alone.
 * Through @axe-core/playwright each scan evaluated the 500 kB source again and cost about 0.8 s against
 * 0.3 s (docs/testing.md, "Accessibility scans"). Frames are not entered: a page that gains one fails here.
 */
export async function accessibilityViolations(page: Page): Promise<string[]> {
  expect(await page.locator('iframe, frame').count()).toBe(0);
  if (!(await page.evaluate(() => 'axe' in globalThis))) await page.evaluate(axe.source);
  const violations = await page.evaluate(async () => {
    const run = (globalThis as any).axe.run as typeof axe.run;
    return (await run((globalThis as any).document, { resultTypes: ['violations'] })).violations;
  });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/** No serious or critical accessibility violation (axe) on the page as it stands; `name` says which page in a failure. */
export async function expectAccessible(page: Page, name: string): Promise<void> {
  expect({ page: name, violations: await accessibilityViolations(page) }).toEqual({ page: name, violations: [] });
}

/** The page fits its width: nothing scrolls the whole page sideways (wide tables scroll in their own region). */
export async function expectNoSidewaysScroll(page: Page, name: string): Promise<void> {
  const width = page.viewportSize()!.width;
  const scrollWidth = await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth as number);
  expect({ page: name, scrollWidth: Math.min(scrollWidth, width) }).toEqual({ page: name, scrollWidth });
}

/**
 * Signs `who` in on the dashboard in a fresh offline context at `device` width and waits for the
 * Overview. `external` collects what the page tried to load from outside (refused); `beforeLoad`
 * runs on the page before it opens (an init script).
 */
export async function signInToDashboard(
  browser: Browser,
  baseUrl: string,
  device: typeof PHONE | typeof DESKTOP,
  who: { email: string; password: string },
  beforeLoad?: (page: Page) => Promise<void>,
): Promise<{ context: BrowserContext; page: Page; external: { url: string; type: string }[] }> {
  const { context, external } = await offlineContext(browser, baseUrl, device);
  const page = await context.newPage();
  await beforeLoad?.(page);
  await page.goto(`${baseUrl}/dashboard`);
  await page.getByLabel('E-mail').fill(who.email);
  await page.getByLabel('Password').fill(who.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
  return { context, page, external };
}

/** The dashboard's main navigation (a sidebar on a desktop, a "Menu" disclosure at phone width). */
export const mainNavigation = (page: Page): Locator => page.getByRole('navigation', { name: 'Main' });

/** The phone's menu button; not shown (so not found) where the navigation is a sidebar. */
export const menuButton = (page: Page): Locator => mainNavigation(page).getByRole('button', { name: /^Menu/ });

/** Opens the navigation when it is a closed phone menu, as a person would before choosing a page; nothing on a desktop. */
export async function openNavigation(page: Page): Promise<void> {
  await mainNavigation(page).waitFor();
  const menu = menuButton(page);
  if ((await menu.isVisible()) && (await menu.getAttribute('aria-expanded')) !== 'true') await menu.click();
}

/**
 * The main navigation's link `name` at any width: each action opens the phone menu first when it is
 * closed (choosing a page closes it again). Tests reach pages through this, so one place knows how
 * the navigation is opened.
 */
export function navLink(page: Page, name: string | RegExp, options: { exact?: boolean } = {}) {
  const link = mainNavigation(page).getByRole('link', { name, exact: options.exact });
  const opened = async () => {
    await openNavigation(page);
    return link;
  };
  return {
    click: async () => (await opened()).click(),
    waitFor: async () => (await opened()).waitFor(),
    count: async () => (await opened()).count(),
  };
}


/** `text` as a regular expression matching itself. */
const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The card picker labelled `label` (docs/dashboard.md, Widgets from kept libraries): its button, named
 * "label: the card chosen", and the popover it opens, a dialog named `label` holding a combobox to
 * type in and a listbox of cards.
 */
export function cardPicker(page: Page, label: string) {
  const popover = page.getByRole('dialog', { name: label, exact: true });
  return {
    button: page.getByRole('button', { name: new RegExp(`^${literal(label)}: `) }),
    popover,
    search: popover.getByRole('combobox'),
    options: popover.getByRole('option'),
  };
}

/**
 * Chooses a card as a person does: opens the picker labelled `label`, types `search`, and clicks the
 * option showing `utid` (the first option left when no utid is given); the popover then closes.
 */
export async function chooseCard(page: Page, label: string, search: string, utid?: string): Promise<void> {
  const picker = cardPicker(page, label);
  await picker.button.click();
  await picker.search.fill(search);
  await (utid ? picker.options.filter({ hasText: utid }) : picker.options.first()).click();
  await picker.popover.waitFor({ state: 'detached' });
}
