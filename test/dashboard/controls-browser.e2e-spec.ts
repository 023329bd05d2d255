import type { Browser, BrowserContext, Page } from 'playwright-core';
import { DataSource } from 'typeorm';
import { artifact, DESKTOP, expectAccessible, expectNoSidewaysScroll, launchChromium, navLink, PHONE, signInToDashboard } from '../support/browser';
import { addMember } from '../support/dashboard';
import { expectLedgerInvariants } from '../support/ledger-invariants';
import { fund } from '../support/rewards';
import { isolatedDatabase, SeededMerchant, seedMerchant, startTestApp, TestApp } from '../support/test-app';



/** Key limits and approvals in the dashboard (docs/controls.md), in a real browser at phone and desktop width. */
describe('dashboard controls in a real browser (Debian chromium)', () => {
  let t: TestApp;
  let m: SeededMerchant;
  let browser: Browser;
  const outside: { url: string; type: string }[] = [];

  async function signedIn(device: typeof DESKTOP | typeof PHONE, who: { email: string; password: string }): Promise<{ context: BrowserContext; page: Page }> {
    const { context, page, external } = await signInToDashboard(browser, t.baseUrl, device, who);
    page.on('close', () => external.forEach((url) => outside.push(url)));
    return { context, page };
  }
  const nav = (page: Page, name: string | RegExp) => navLink(page, name);

  beforeAll(async () => {
    t = await startTestApp({ env: await isolatedDatabase() });
    m = await seedMerchant(t, { name: 'Controls Inc' });
    await fund(t, m, 200_000);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await expectLedgerInvariants(t.app.get(DataSource), m.accountId);
    await t?.close();
  });
  afterEach(() => expect(outside).toEqual([]));

  it('creates a key with spending limits, listed with the key, at phone and desktop width', async () => {
    for (const [device, name] of [
      [DESKTOP, 'desktop'],
      [PHONE, 'phone'],
    ] as const) {
      const { context, page } = await signedIn(device, m);
      await nav(page, 'Developers').click();
      await page.getByLabel('Key name').fill(`Limited ${name}`);
      await page.getByLabel(/Largest single send/).fill('50');
      await page.getByLabel(/Daily limit/).fill('200.50');
      await page.getByRole('button', { name: 'Create key' }).click();
      await page.getByLabel('Secret', { exact: true }).waitFor();
      await page.getByRole('button', { name: 'Done' }).click();
      await page.getByRole('cell', { name: `Limited ${name}` }).waitFor();
      await page.getByRole('cell', { name: /\$50\.00 a send · \$200\.50 a day/ }).first().waitFor();
      const keys = (await t.app.get(DataSource).query(`SELECT max_reward_cents, daily_limit_cents FROM api_keys WHERE name = $1`, [`Limited ${name}`])) as {
        max_reward_cents: string;
        daily_limit_cents: string;
      }[];
      expect(keys).toEqual([{ max_reward_cents: '5000', daily_limit_cents: '20050' }]);
      await expectAccessible(page, `Developers with limits (${name})`);
      await expectNoSidewaysScroll(page, `Developers (${name})`);
      await context.close();
    }
  }, 120_000);

  it('sets the approval threshold, the Send page says a send will need approval, and another admin approves it from the Approvals page', async () => {
    const desktop = await signedIn(DESKTOP, m);
    let page = desktop.page;
    await nav(page, 'Settings').click();
    await page.getByLabel(/Approval needed from/).fill('100');
    await page.getByRole('button', { name: 'Save threshold' }).click();
    await page.getByText('Approval threshold saved.').waitFor();
    expect((await t.api.as(m.key).get('/v1/account/approval-settings')).body).toEqual({ approvalSettings: { thresholdCents: 10_000 } });
    await expectAccessible(page, 'Settings with approvals (desktop)');

    await nav(page, 'Send').click();
    await page.getByLabel("Recipient's choice (CHOICE)").check();
    await page.getByLabel('Recipient e-mail').fill('big.send@example.com');
    await page.getByLabel('First name').fill('Bo');
    await page.getByLabel(/^Amount/).fill('99');
    await expect(page.getByText('This send needs approval').count()).resolves.toBe(0);
    await page.getByLabel(/^Amount/).fill('150');
    await page.getByText('This send needs approval').waitFor();
    await expectAccessible(page, 'Send with the approval notice (desktop)');
    await page.getByRole('button', { name: 'Send reward' }).click();
    await page.getByRole('dialog', { name: 'Send this reward?' }).getByRole('button', { name: 'Send $150.00' }).click();
    await page.getByText(/created and waiting for approval/).waitFor();
    const [waiting] = (await t.api.as(m.key).get('/v1/rewards?page_size=10')).body.rewards;
    expect(waiting).toMatchObject({ recipientEmail: 'big.send@example.com', status: 'CREATED', approval: { status: 'PENDING' } });

    // The sender sees it waiting but cannot decide it.
    await nav(page, /^Approvals/).click();
    await page.getByRole('heading', { level: 1, name: 'Approvals' }).waitFor();
    await page.getByText('You sent it: another admin or owner decides').waitFor();
    await desktop.context.close();

    // Another admin, on a phone: the badge counts it, the page approves it after a confirmation.
    const admin = await addMember(t, m.accountId, 'admin');
    const phone = await signedIn(PHONE, admin);
    page = phone.page;
    await nav(page, /^Approvals\s*1 waiting$/).waitFor();
    await nav(page, /^Approvals/).click();
    await page.getByRole('cell', { name: 'big.send@example.com' }).waitFor();
    await expectAccessible(page, 'Approvals (phone)');
    await expectNoSidewaysScroll(page, 'Approvals (phone)');
    await page.screenshot({ path: artifact('dashboard-approvals-phone.png'), fullPage: true });
    // The reward's own page says it waits.
    await page.getByRole('link', { name: waiting.id }).click();
    await page.getByText('Waiting for an admin or owner (Approvals page)').waitFor();
    await page.goBack();
    await page.getByRole('cell', { name: 'big.send@example.com' }).waitFor();
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.getByRole('button', { name: 'Yes, approve' }).click();
    await page.getByText('Approved: the reward is on its way.').waitFor();
    await page.getByText('No sends are waiting for approval.').waitFor();
    await expect(nav(page, /waiting/).count()).resolves.toBe(0);
    expect((await t.api.as(m.key).get(`/v1/rewards/${waiting.id}`)).body.reward).toMatchObject({
      status: 'SENT',
      approval: { status: 'APPROVED', decidedBy: { type: 'user', id: admin.userId } },
    });
    await expectAccessible(page, 'Approvals empty (phone)');
    await phone.context.close();
  }, 120_000);
});
