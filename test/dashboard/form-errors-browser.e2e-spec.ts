import type { Browser, Page } from 'playwright-core';
import { DataSource } from 'typeorm';
import { artifact, DESKTOP, expectAccessible, expectNoSidewaysScroll, launchChromium, PHONE, signInToDashboard } from '../support/browser';
import { fund, recipient } from '../support/rewards';
import { SeededMerchant, seedMerchant, startTestApp, TestApp } from '../support/test-app';

/** What the API says to programs, never shown to a merchant (docs/dashboard.md, Errors). */
const RAW = /bad_request|Invalid request|expiresAt|must not contain credentials|PATCH active/;

/** The element that has the keyboard focus: its `data-issue-path` (the API field it shows). */
const focusedPath = (page: Page) => page.evaluate(() => (globalThis as any).document.activeElement?.getAttribute('data-issue-path') as string | null);

/**
 * Errors where the eye is (docs/dashboard.md, Errors), in real headless chromium at phone and desktop
 * width: a field the server refuses gets the focus, a summary by the submit button names it by its
 * label in merchant words and links to it, and no API field name or error code shows. And the
 * Webhooks deliveries: Retry explains why a pending one cannot be retried, a failed one offers
 * "Retry now", and a delivery's payload and attempts can be opened.
 */
describe('dashboard: server errors in merchant words, by the field; webhook deliveries in detail', () => {
  let t: TestApp;
  let m: SeededMerchant;
  let browser: Browser;

  beforeAll(async () => {
    t = await startTestApp();
    m = await seedMerchant(t, { name: 'Errors Inc' });
    await fund(t, m, 100_000);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t.close();
  });

  const devices = [
    ['desktop', DESKTOP],
    ['phone', PHONE],
  ] as const;

  it.each(devices)('at %s width: an expiry in the past on the Send form focuses the field and is named in the summary by the button', async (name, device) => {
    const { context, page } = await signInToDashboard(browser, t.baseUrl, device, { email: m.email, password: m.password });
    const before = (await t.api.as(m.key).get('/v1/wallet')).body.wallet.availableCents;
    await page.goto(`${t.baseUrl}/dashboard/send`);
    await page.getByLabel("Recipient's choice (CHOICE)").check();
    await page.getByLabel('Recipient e-mail').fill(recipient().email);
    await page.getByLabel('First name').fill('Ada');
    await page.getByLabel(/^Amount/).fill('10');
    await page.getByLabel('Expires at (optional)').fill('2020-01-01T10:00');
    await page.getByRole('button', { name: 'Send reward' }).click();
    await page.getByRole('dialog', { name: 'Send this reward?' }).getByRole('button', { name: 'Send $10.00' }).click();

    const summary = page.getByRole('alert').filter({ hasText: 'Check this field:' });
    await summary.getByRole('link', { name: 'Expires at (optional): Choose a date and time in the future.' }).waitFor();
    await page.waitForFunction(() => (globalThis as any).document.activeElement?.getAttribute('data-issue-path') === 'expiresAt');
    const expiry = page.getByLabel('Expires at (optional)');
    expect(await expiry.getAttribute('aria-invalid')).toBe('true');
    const describedBy = (await expiry.getAttribute('aria-describedby'))!.split(' ');
    const description = await Promise.all(describedBy.map((id) => page.locator(`[id="${id}"]`).innerText()));
    expect(description).toContain('Choose a date and time in the future.');
    // The summary sits by the submit button: the next thing after it in the form.
    expect(await summary.evaluate((el) => el.nextElementSibling?.textContent)).toBe('Send reward');
    expect(await page.locator('main').innerText()).not.toMatch(RAW);

    // The link in the summary takes the focus back to the field.
    await page.getByLabel('First name').focus();
    await summary.getByRole('link').click();
    expect(await focusedPath(page)).toBe('expiresAt');

    await expectAccessible(page, `Send refused (${name})`);
    await expectNoSidewaysScroll(page, `Send refused (${name})`);
    await page.screenshot({ path: artifact(`dashboard-form-errors-send-${name}.png`), fullPage: true });
    expect((await t.api.as(m.key).get('/v1/wallet')).body.wallet.availableCents).toBe(before);
    await context.close();
  }, 120_000);

  it.each(devices)('at %s width: a webhook URL the server refuses focuses the URL field, in merchant words', async (name, device) => {
    const { context, page } = await signInToDashboard(browser, t.baseUrl, device, { email: m.email, password: m.password });
    await page.goto(`${t.baseUrl}/dashboard/webhooks`);
    const form = page.getByRole('form', { name: 'Add endpoint' });
    await form.getByLabel('URL').fill('https://user:secret@example.com/webhooks');
    await form.getByRole('button', { name: 'Add endpoint' }).click();
    const summary = form.getByRole('alert');
    await summary.getByRole('link', { name: 'URL: Remove the user name and password from the address.' }).waitFor();
    await page.waitForFunction(() => (globalThis as any).document.activeElement?.getAttribute('data-issue-path') === 'url');
    expect(await form.getByLabel('URL').getAttribute('aria-invalid')).toBe('true');
    expect(await summary.evaluate((el) => el.nextElementSibling?.textContent)).toBe('Add endpoint');
    expect(await page.locator('main').innerText()).not.toMatch(RAW);
    await expectAccessible(page, `Webhook endpoint refused (${name})`);
    await expectNoSidewaysScroll(page, `Webhook endpoint refused (${name})`);
    expect((await t.api.as(m.key).get('/v1/webhook-endpoints')).body.webhookEndpoints).toEqual([]);
    await context.close();
  }, 120_000);

  it.each(devices)('at %s width: a pending delivery cannot be retried and says why; a failed one offers Retry now; payload and attempts open', async (name, device) => {
    // No worker runs here: a test event stays PENDING; a second one is made FAILED after two attempts, as the worker leaves it.
    const url = `http://127.0.0.1:9/hooks-${name}`;
    const created = await t.api.as(m.key).post('/v1/webhook-endpoints', { url, events: [] });
    expect(created.status).toBe(201);
    const endpointId = created.body.webhookEndpoint.id as string;
    const ping = async () => (await t.api.as(m.key).post(`/v1/webhook-endpoints/${endpointId}/test`, {})).body.delivery.id as string;
    const pendingId = await ping();
    const failedId = await ping();
    const db = t.app.get(DataSource);
    await db.query(
      `UPDATE webhook_deliveries SET status = 'FAILED', attempts = 2, response_status = 500, last_error = 'HTTP 500',
              last_attempt_at = clock_timestamp() - interval '1 minute', next_attempt_at = NULL WHERE id = $1`,
      [failedId],
    );
    await db.query(
      `INSERT INTO webhook_delivery_attempts (delivery_id, attempt, started_at, duration_ms, succeeded, response_status, error)
       VALUES ($1, 1, clock_timestamp() - interval '5 minutes', 321, false, 500, 'HTTP 500'),
              ($1, 2, clock_timestamp() - interval '1 minute', 45, false, NULL, 'connection refused')`,
      [failedId],
    );

    const { context, page } = await signInToDashboard(browser, t.baseUrl, device, { email: m.email, password: m.password });
    await page.goto(`${t.baseUrl}/dashboard/webhooks`);
    const card = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: url }) });
    await card.getByRole('button', { name: 'Show deliveries' }).click();

    const pendingRow = card.getByRole('row').filter({ hasText: 'PENDING' });
    const pendingRetry = pendingRow.getByRole('button', { name: 'Retry now' });
    await pendingRetry.waitFor();
    expect(await pendingRetry.isDisabled()).toBe(true);
    const reasonId = (await pendingRetry.getAttribute('aria-describedby'))!;
    expect(await page.locator(`[id="${reasonId}"]`).innerText()).toBe('Still pending: its next attempt is already scheduled.');

    const failedRow = card.getByRole('row').filter({ hasText: 'FAILED' });
    expect(await failedRow.getByRole('button', { name: 'Retry now' }).isEnabled()).toBe(true);

    await failedRow.getByRole('button', { name: `Show payload and attempts of ping ${failedId}` }).click();
    const detail = card.getByRole('region', { name: `Delivery ${failedId}` });
    await detail.getByText('"type": "ping"').waitFor();
    await detail.getByText(/Attempt 1: .* · HTTP 500 · 321 ms · HTTP 500/).waitFor();
    await detail.getByText(/Attempt 2: .* · no HTTP answer · 45 ms · connection refused/).waitFor();
    await expectAccessible(page, `Webhook delivery detail (${name})`);
    await expectNoSidewaysScroll(page, `Webhook delivery detail (${name})`);
    await page.screenshot({ path: artifact(`dashboard-webhook-delivery-${name}.png`), fullPage: true });

    await failedRow.getByRole('button', { name: 'Retry now' }).click();
    await card.getByRole('row').filter({ hasText: 'FAILED' }).waitFor({ state: 'detached' });
    const after = await t.api.as(m.key).get(`/v1/webhook-endpoints/${endpointId}/deliveries/${failedId}`);
    expect(after.body.delivery.status).toBe('PENDING');
    // The pending one was left alone: still PENDING, never attempted.
    const pending = await t.api.as(m.key).get(`/v1/webhook-endpoints/${endpointId}/deliveries/${pendingId}`);
    expect(pending.body.delivery).toMatchObject({ status: 'PENDING', attempts: 0 });
    await context.close();
  }, 120_000);
});
