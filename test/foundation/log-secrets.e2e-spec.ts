import { addMember, signedIn } from '../support/dashboard';
import { DashboardClient } from '../support/dashboard-client';
import { RecipientClient, tokenOf } from '../support/redemption';
import { choiceReward, fund } from '../support/rewards';
import { captureLogLines } from '../support/log-capture';
import { SmtpSink } from '../support/smtp-sink';
import { SeededMerchant, seedMerchant, startTestApp, TestApp } from '../support/test-app';

/**
 * The service log never holds a single-use token: every path that carries one (invitation, password
 * reset, redemption link, and the dashboard's deep links to them) is logged with it replaced, whatever
 * the route answers, and so are credentials in query strings (docs/operations.md, Logging policy).
 */
describe('request log: secrets in paths and query strings', () => {
  const smtp = new SmtpSink();
  let t: TestApp;
  let m: SeededMerchant;
  const log = captureLogLines();

  beforeAll(async () => {
    // `info`: the level operators run with, where every request gets its line.
    t = await startTestApp({ env: { SMTP_URL: await smtp.start(), LOG_LEVEL: 'info' } });
    m = await seedMerchant(t);
    await fund(t, m, 100_000);
  });
  afterAll(async () => {
    await t.close();
    await smtp.stop();
  });

  /** The URLs of the request lines written so far (pino-http writes each when its response is finished). */
  async function requestLines(): Promise<{ method: string; url: string; status: number }[]> {
    await new Promise((resolve) => setImmediate(resolve));
    return log.lines
      .map((line) => JSON.parse(line) as { req?: { method: string; url: string }; res?: { statusCode: number } })
      .filter((entry) => entry.req && entry.res)
      .map((entry) => ({ method: entry.req!.method, url: entry.req!.url, status: entry.res!.statusCode }));
  }

  async function mailedToken(email: string, path: string): Promise<string> {
    const mail = await smtp.waitFor((message) => message.to.toLowerCase().includes(email.toLowerCase()));
    return new RegExp(`${t.baseUrl}/dashboard/${path}/([A-Za-z0-9]+)`).exec(mail.text)![1];
  }

  it('invitation tokens: preview, accept, a wrong method and the e-mailed deep link', async () => {
    const owner = await signedIn(t, m);
    expect((await owner.post('/dashboard/api/invitations', { email: 'logged.invitee@example.test', role: 'developer' })).status).toBe(201);
    const token = await mailedToken('logged.invitee@example.test', 'invitations');
    const visitor = new DashboardClient(t.baseUrl);

    // The deep link's shell is served before the request logger: no line, and never the token.
    await fetch(`${t.baseUrl}/dashboard/invitations/${token}`);
    expect((await visitor.get(`/dashboard/api/invitations/${token}`)).status).toBe(200);
    expect((await visitor.get(`/dashboard/api/invitations/${token}/accept`)).status).toBe(404);
    expect((await visitor.post(`/dashboard/api/invitations/${token}/accept`, { password: 'short' })).status).toBe(400);
    expect((await visitor.post(`/dashboard/api/invitations/${token}/accept`, { password: 'a very private passphrase' })).status).toBe(201);

    const lines = await requestLines();
    expect(log.lines.join('')).not.toContain(token);
    expect(lines.map((line) => `${line.method} ${line.url}`)).toEqual(
      expect.arrayContaining([
        'GET /dashboard/api/invitations/[redacted]',
        'GET /dashboard/api/invitations/[redacted]/accept',
        'POST /dashboard/api/invitations/[redacted]/accept',
      ]),
    );
  });

  it('password-reset tokens: the reset itself and the e-mailed deep link', async () => {
    const person = await addMember(t, m.accountId, 'admin');
    const visitor = new DashboardClient(t.baseUrl);
    expect((await visitor.post('/dashboard/api/password-reset', { email: person.email })).status).toBe(202);
    const token = await mailedToken(person.email, 'reset-password');

    await fetch(`${t.baseUrl}/dashboard/reset-password/${token}`);
    expect((await visitor.post(`/dashboard/api/password-reset/${token}`, { password: 'my recovered passphrase' })).status).toBe(204);
    expect((await visitor.post(`/dashboard/api/password-reset/${token}`, { password: 'another passphrase 99' })).status).toBe(404);

    const lines = await requestLines();
    expect(log.lines.join('')).not.toContain(token);
    expect(lines.filter((line) => line.url === '/dashboard/api/password-reset/[redacted]').map((line) => line.status)).toEqual([204, 404]);
  });

  it('redemption tokens: the page, its API, a pick, and a path below the link no route knows', async () => {
    const sent = await t.api.as(m.key).post('/v1/rewards', choiceReward(2_000));
    const token = tokenOf(sent.body.redemptionUrl);
    const recipient = new RecipientClient(t);
    await fetch(`${t.baseUrl}/r/${token}`);
    await fetch(`${t.baseUrl}/r/${token}/api`);
    await recipient.pick(token, { utid: 'no-such-item', amountCents: 500 });
    expect((await fetch(`${t.baseUrl}/r/${token}/no/such/path?x=1`)).status).toBe(404);

    const lines = await requestLines();
    expect(log.lines.join('')).not.toContain(token);
    expect(lines.map((line) => line.url)).toEqual(
      expect.arrayContaining(['/r/[redacted]', '/r/[redacted]/api', '/r/[redacted]/api/cards', '/r/[redacted]/no/such/path?x=1']),
    );
  });

  it('credentials in a query string are replaced, other parameters kept', async () => {
    await fetch(`${t.baseUrl}/oauth/authorize?client_id=app_1&code=secret-code-123&refresh_token=secret-refresh-456&state=s1`);
    const lines = await requestLines();
    expect(log.lines.join('')).not.toMatch(/secret-code-123|secret-refresh-456/);
    expect(lines.map((line) => line.url)).toContain('/oauth/authorize?client_id=app_1&code=[redacted]&refresh_token=[redacted]&state=s1');
  });
});
