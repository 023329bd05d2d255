import type { Browser } from 'playwright-core';
import { artifact, DESKTOP, expectAccessible, expectNoSidewaysScroll, launchChromium, PHONE, signInToDashboard } from '../support/browser';
import { addMember, MEMBER_PASSWORD, signedIn } from '../support/dashboard';
import { eventually } from '../support/processes';
import { choiceReward, fund, recipient } from '../support/rewards';
import { SeededMerchant, seedMerchant, startTestApp, startTestWorker, TestApp, TestWorker } from '../support/test-app';

/**
 * The dashboard's preview of a recipient page (docs/redemption.md, Preview): a sender looks at what
 * the recipient will see without opening the reward for them.
 */
describe('previewing the recipient page from the dashboard', () => {
  let t: TestApp;
  let worker: TestWorker;
  let m: SeededMerchant;
  let browser: Browser;

  beforeAll(async () => {
    t = await startTestApp();
    worker = await startTestWorker(t);
    m = await seedMerchant(t, { name: 'Acme Inc' });
    await fund(t, m, 100_000);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await worker?.close();
    await t.close();
  });

  const sendChoice = async (overrides: Record<string, unknown> = {}) => {
    const sent = await t.api.as(m.key).post('/v1/rewards', choiceReward(2_500, overrides));
    expect(sent.status).toBe(201);
    const id: string = sent.body.reward.id;
    await eventually(async () => (await t.api.as(m.key).get(`/v1/rewards/${id}`)).body.reward.status === 'SENT');
    return id;
  };
  const reward = async (id: string) => (await t.api.as(m.key).get(`/v1/rewards/${id}`)).body.reward;

  it('shows the page in the recipient’s language with a preview banner, no picks and no codes; the reward stays SENT with no reward.opened', async () => {
    const id = await sendChoice({ recipient: recipient({ firstName: 'Lucie', language: 'fr' }), message: 'Merci !' });
    const viewer = await signedIn(t, await addMember(t, m.accountId, 'viewer').then((u) => ({ email: u.email, password: MEMBER_PASSWORD })));

    const res = await viewer.get(`/dashboard/api/rewards/${id}/recipient-preview`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('content-language')).toBe('fr');
    expect(res.text).toContain('<html lang="fr">');
    expect(res.text).toContain('This is the page your recipient sees');
    expect(res.text).toContain('Lucie');
    expect(res.text).toContain('Merci !');
    // Nothing to pick, and no script that could pick or poll.
    expect(res.text).not.toContain('id="pick-form"');
    expect(res.text).not.toContain('<script');

    const after = await reward(id);
    expect(after.status).toBe('SENT');
    expect(after.openedAt ?? null).toBeNull();
    expect(after.events.map((e: { type: string }) => e.type)).not.toContain('reward.opened');
  });

  it('is the session’s only: an API key gets 401, another account’s reward is 404', async () => {
    const id = await sendChoice();
    const withKey = await fetch(`${t.baseUrl}/dashboard/api/rewards/${id}/recipient-preview`, { headers: { authorization: `Bearer ${m.key}` } });
    expect(withKey.status).toBe(401);
    const other = await seedMerchant(t, { name: 'Other Co' });
    const stranger = await signedIn(t, other);
    const res = await stranger.get(`/dashboard/api/rewards/${id}/recipient-preview`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'not_found', message: expect.any(String) });
    expect((await reward(id)).status).toBe('SENT');
  });

  it('the reward page links to the preview, which opens in a new tab, accessible at phone and desktop width', async () => {
    const id = await sendChoice({ recipient: recipient({ firstName: 'Jonas', language: 'de' }) });
    for (const device of [PHONE, DESKTOP]) {
      const width = device === PHONE ? 'phone' : 'desktop';
      const { context, page } = await signInToDashboard(browser, t.baseUrl, device, m);
      await page.goto(`${t.baseUrl}/dashboard/rewards/${id}`);
      const link = page.getByRole('link', { name: /Preview the recipient page/ });
      await link.waitFor();
      const [preview] = await Promise.all([context.waitForEvent('page'), link.click()]);
      await preview.getByText('This is the page your recipient sees').waitFor();
      expect(await preview.locator('html').getAttribute('lang')).toBe('de');
      expect(await preview.getByRole('heading', { level: 1 }).textContent()).toContain('Jonas');
      expect(await preview.locator('#pick-form').count()).toBe(0);
      await expectAccessible(preview, `Recipient page preview (${width})`);
      await expectNoSidewaysScroll(preview, `Recipient page preview (${width})`);
      await preview.screenshot({ path: artifact(`dashboard-recipient-preview-${width}.png`), fullPage: true });
      await context.close();
    }
    expect((await reward(id)).status).toBe('SENT');
  });
});
