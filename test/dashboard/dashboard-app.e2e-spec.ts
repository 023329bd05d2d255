import { launchChromium, offlineContext, PHONE, DESKTOP, artifact } from '../support/browser';
import { startTestApp, TestApp } from '../support/test-app';

/** The dashboard's web app as the API process serves it (`npm start` builds it; the test run's pretest too). */
describe('dashboard web app: served under /dashboard', () => {
  let testApp: TestApp;

  beforeAll(async () => {
    testApp = await startTestApp();
  });
  afterAll(() => testApp.close());

  it('serves the shell for /dashboard and every deep link, never cached', async () => {
    for (const path of ['/dashboard', '/dashboard/', '/dashboard/rewards', '/dashboard/invitations/abc123']) {
      const res = await fetch(`${testApp.baseUrl}${path}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(res.headers.get('cache-control')).toBe('no-cache');
      expect(await res.text()).toContain('<div id="root">');
    }
  });

  it('serves hashed assets with a year-long immutable cache, and 404 for a missing one', async () => {
    const shell = await (await fetch(`${testApp.baseUrl}/dashboard`)).text();
    const script = /src="(\/dashboard\/assets\/[^"]+\.js)"/.exec(shell)?.[1];
    expect(script).toBeDefined();
    const asset = await fetch(`${testApp.baseUrl}${script}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toMatch(/javascript/);
    expect(asset.headers.get('cache-control')).toMatch(/max-age=31536000.*immutable/);
    expect((await fetch(`${testApp.baseUrl}/dashboard/assets/nothing-here.js`)).status).toBe(404);
  });

  it('leaves /dashboard/api to the API: an unknown route is a JSON 404, not the shell', async () => {
    const res = await fetch(`${testApp.baseUrl}/dashboard/api/no-such-route`);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/json/);
  });

  it('shows the sign-in form in a real browser, at phone and desktop width, with no request leaving the origin', async () => {
    const browser = await launchChromium();
    try {
      for (const [name, device] of [
        ['phone', PHONE],
        ['desktop', DESKTOP],
      ] as const) {
        const { context, external } = await offlineContext(browser, testApp.baseUrl, device);
        const page = await context.newPage();
        const errors: string[] = [];
        page.on('pageerror', (error) => errors.push(error.message));
        await page.goto(`${testApp.baseUrl}/dashboard/rewards`);
        // Not signed in: the app sends the browser to its sign-in page.
        await page.getByRole('heading', { name: 'Sign in' }).waitFor();
        expect(new URL(page.url()).pathname).toBe('/dashboard/sign-in');
        await expect(page.getByLabel('E-mail').isVisible()).resolves.toBe(true);
        await expect(page.getByLabel('Password').isVisible()).resolves.toBe(true);
        await expect(page.getByRole('button', { name: 'Sign in' }).isEnabled()).resolves.toBe(true);
        await page.screenshot({ path: artifact(`dashboard-sign-in-${name}.png`), fullPage: true });
        expect(errors).toEqual([]);
        expect(external).toEqual([]);
        await context.close();
      }
    } finally {
      await browser.close();
    }
  });
});
