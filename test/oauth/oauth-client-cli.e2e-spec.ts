import { DataSource } from 'typeorm';
import { runBuilt } from '../support/processes';
import { asApp, connect } from '../support/oauth';
import { seedMerchant, startTestApp, TestApp } from '../support/test-app';

/** `npm run cli -- oauth-client:create` (docs/operations.md), run as the built CLI, then used by a real client. */
describe('oauth-client:create', () => {
  let t: TestApp;
  const env = () => ({ DATABASE_URL: process.env.DATABASE_URL!, QUEUE_PREFIX: `${process.env.QUEUE_PREFIX}-cli` });
  const cli = (...args: string[]) => runBuilt('cli', ['oauth-client:create', ...args], env());

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('prints exactly {clientId, clientSecret} once; the secret is stored only as a hash and works at the token endpoint', async () => {
    const redirectUri = 'https://app.example.test/oauth/callback';
    const run = await cli(
      '--name', 'Acme Loyalty',
      '--redirect-uri', redirectUri,
      '--redirect-uri', 'http://127.0.0.1:8123/callback',
      '--scopes', 'account:read  rewards:write',
    );
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout.trim().split('\n')).toHaveLength(1);
    const created = JSON.parse(run.stdout);
    expect(Object.keys(created)).toEqual(['clientId', 'clientSecret']);
    expect(created.clientId).toMatch(/^oac_[A-Za-z0-9]{22}$/);
    expect(created.clientSecret).toMatch(/^ocs_[A-Za-z0-9]{43}$/);

    const [row] = await t.app.get(DataSource).query('SELECT * FROM oauth_clients WHERE id = $1', [created.clientId]);
    expect(row).toMatchObject({ name: 'Acme Loyalty', redirect_uris: [redirectUri, 'http://127.0.0.1:8123/callback'], scopes: ['account:read', 'rewards:write'] });
    expect(JSON.stringify(row)).not.toContain(created.clientSecret.slice(4));

    // The registered client connects through the whole flow.
    const app = await asApp(t, created.clientId, created.clientSecret, 'http://127.0.0.1:8123/callback');
    const tokens = await connect(t, app, await seedMerchant(t), 'account:read');
    expect((await t.api.as(tokens.access_token).get('/v1/account')).status).toBe(200);
  });

  it.each([
    ['plain http to a public host', ['--redirect-uri', 'http://app.example.test/cb', '--scopes', 'account:read'], /must use https/],
    ['a fragment', ['--redirect-uri', 'https://app.example.test/cb#x', '--scopes', 'account:read'], /fragment/],
    ['a relative URI', ['--redirect-uri', '/cb', '--scopes', 'account:read'], /absolute URL/],
    ['a first-party scope', ['--redirect-uri', 'https://app.example.test/cb', '--scopes', 'account:read wallet:write'], /wallet:write is never granted/],
    ['an unknown scope', ['--redirect-uri', 'https://app.example.test/cb', '--scopes', 'everything'], /everything is not a scope/],
  ])('refuses %s', async (_, args, message) => {
    const run = await cli('--name', 'Bad App', ...args);
    expect(run.code).not.toBe(0);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(message);
  });

  it('needs --name, --redirect-uri and --scopes', async () => {
    const run = await cli('--name', 'No Redirect', '--scopes', 'account:read');
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('missing --redirect-uri');
  });
});
