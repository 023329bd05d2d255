import type { Browser } from 'playwright-core';
import { DESKTOP, expectAccessible, launchChromium, navLink, PHONE, signInToDashboard } from '../support/browser';
import { eventually } from '../support/processes';
import { SeededMerchant, seedMerchant, startTestApp, startTestWorker, TestApp, TestWorker } from '../support/test-app';
import { WebhookReceiver } from '../support/webhook-receiver';


/**
 * The Webhooks page's "Replay a time range" (docs/webhooks.md, Replay) in real headless chromium, at
 * phone and desktop width: the form sends the days chosen, shows how many events go out again, and
 * the receiver gets them again under their original ids.
 */
describe('dashboard: replay a time range to a webhook endpoint', () => {
  const receiver = new WebhookReceiver();
  let t: TestApp;
  let worker: TestWorker;
  let m: SeededMerchant;
  let browser: Browser;
  let endpointUrl: string;

  beforeAll(async () => {
    t = await startTestApp();
    worker = await startTestWorker(t);
    await receiver.start();
    m = await seedMerchant(t, { name: 'Replay Inc' });
    endpointUrl = receiver.url('/replayed');
    expect((await t.api.as(m.key).post('/v1/webhook-endpoints', { url: endpointUrl, events: ['wallet.credited'] })).status).toBe(201);
    for (const amountCents of [1_000, 2_000]) expect((await t.api.as(m.key).post('/v1/topups', { amountCents })).status).toBe(201);
    await eventually(async () => receiver.at('/replayed').length === 2);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await worker?.close();
    await t.close();
    await receiver.close();
  });

  it.each([
    ['desktop', DESKTOP],
    ['phone', PHONE],
  ] as const)('at %s width: the form replays the days chosen and says how many events go out again', async (name, device) => {
    const { context, page } = await signInToDashboard(browser, t.baseUrl, device, m);
    await navLink(page, 'Webhooks', { exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();

    const before = receiver.at('/replayed').length;
    await page.getByRole('button', { name: 'Replay a time range' }).click();
    const form = page.getByRole('form', { name: `Replay a time range to ${endpointUrl}` });
    const today = new Date().toISOString().slice(0, 10);
    await form.getByLabel('From', { exact: true }).fill(today);
    await form.getByLabel('To', { exact: true }).fill(today);
    await form.getByRole('button', { name: 'Replay' }).click();
    await form.getByRole('status').getByText('2 events will be delivered again.').waitFor();
    await expectAccessible(page, `Webhooks with the replay form (${name})`);
    const width = page.viewportSize()!.width;
    expect(await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth as number)).toBeLessThanOrEqual(width);

    const again = await eventually(async () => receiver.at('/replayed').length === before + 2 && receiver.at('/replayed').slice(before));
    const originals = receiver.at('/replayed').slice(0, 2).map((r) => r.json.id).sort();
    expect(again.map((r) => r.json.id).sort()).toEqual(originals);

    await context.close();
  }, 120_000);
});
