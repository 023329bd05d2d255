import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Browser, BrowserContext, chromium } from 'playwright-core';
import { ROOT } from './processes';

/** Debian's Chromium (apt-get install chromium); never a downloaded browser. */
export const CHROMIUM = '/usr/bin/chromium';
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
