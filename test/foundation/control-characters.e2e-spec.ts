import { DataSource } from 'typeorm';
import { ApiKeyService, MerchantService } from '@app/account';
import { OAuthClientService } from '@app/oauth';
import { RecipientClient, tokenOf } from '../support/redemption';
import { choiceReward, countRows, fund, recipient } from '../support/rewards';
import { SeededMerchant, seedMerchant, startTestApp, TestApp } from '../support/test-app';

/**
 * C0 control characters and DEL (docs/errors.md, Control characters): refused with a 400 naming the
 * field in names, identifiers, e-mail addresses and URLs; free text (a reward's message, an endpoint's
 * description) keeps tab and line breaks and refuses the rest. Nothing is written by a refused request.
 */
describe('control characters in input', () => {
  let t: TestApp;
  let m: SeededMerchant;

  beforeAll(async () => {
    // No worker runs in this file: the endpoints here are at public names, and are never delivered to (docs/operations.md, "Tests are hermetic").
    t = await startTestApp();
    m = await seedMerchant(t);
    await fund(t, m, 100_000);
  });
  afterAll(() => t.close());

  const rewardCount = () => countRows(t.app.get(DataSource), 'SELECT 1 FROM rewards WHERE account_id = $1', [m.accountId]);
  const wallet = async () => (await t.api.as(m.key).get('/v1/wallet')).body.wallet;
  const expectRefused = (res: { status: number; body: any }, path: string) => {
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'bad_request' });
    expect(res.body.issues).toContainEqual({ path, message: expect.stringContaining('control characters') });
  };

  it.each([
    ['recipient.firstName', { recipient: recipient({ firstName: 'Ada\r\nBcc: all@example.com' }) }],
    ['recipient.lastName', { recipient: recipient({ lastName: 'Love\u0007lace' }) }],
    ['recipient.email', { recipient: recipient({ email: '"ada\u0001"@example.com' }) }],
    ['externalId', { externalId: 'order-\u001b[31m1' }],
    ['campaign', { campaign: 'spring\u007f' }],
    ['allowedBrandKeys', { allowedBrandKeys: ['amazon\t'] }],
    ['message', { message: 'Thanks!\u001b[2J' }],
  ])('a send with a control character in %s is 400 naming it; no reward, no money moved', async (path, extra) => {
    const [before, rewards] = [await wallet(), await rewardCount()];
    expectRefused(await t.api.as(m.key).post('/v1/rewards', choiceReward(1_000, extra)), path);
    expect(await wallet()).toEqual(before);
    expect(await rewardCount()).toBe(rewards);
  });

  it("a message keeps its tab and line breaks; a name's ordinary unicode passes", async () => {
    const message = 'Thank you!\r\n\tFrom all of us';
    const res = await t.api.as(m.key).post('/v1/rewards', choiceReward(1_000, { message, recipient: recipient({ firstName: 'Zoë 李' }) }));
    expect(res.status).toBe(201);
    expect(res.body.reward.message).toBe(message);
  });

  it('a control character in a list filter is 400', async () => {
    expectRefused(await t.api.as(m.key).get('/v1/rewards?external_id=order%0A1'), 'external_id');
  });

  it('webhook URLs refuse control characters (the URL parser would drop a tab or line break); descriptions keep line breaks', async () => {
    // The URL parser drops the line break, so without the rule the stored URL would not be the one the SSRF check saw.
    expectRefused(await t.api.as(m.key).post('/v1/webhook-endpoints', { url: 'https://hooks.example.com/a\nb', events: [] }), 'url');
    expectRefused(await t.api.as(m.key).post('/v1/webhook-endpoints', { url: 'https://hooks.example.com/', events: [], description: 'ops\u0008' }), 'description');
    const created = await t.api.as(m.key).post('/v1/webhook-endpoints', { url: 'https://hooks.example.com/ok', events: [], description: 'line one\nline two' });
    expect(created.status).toBe(201);
    const id = created.body.webhookEndpoint.id;
    expectRefused(await t.api.as(m.key).patch(`/v1/webhook-endpoints/${id}`, { url: 'https://hooks.example.com/\u0009x' }), 'url');
    expect((await t.api.as(m.key).get(`/v1/webhook-endpoints/${id}`)).body.webhookEndpoint.url).toBe('https://hooks.example.com/ok');
  });

  it('branding refuses a sender name with a header-breaking line and a logo URL with a control character', async () => {
    const before = (await t.api.as(m.key).get('/v1/account')).body.account;
    expectRefused(await t.api.as(m.key).patch('/v1/account/branding', { senderName: 'Acme\r\nBcc: victim@example.com' }), 'senderName');
    expectRefused(await t.api.as(m.key).patch('/v1/account/branding', { logoUrl: 'https://cdn.example.com/a\u0001b.png' }), 'logoUrl');
    expect((await t.api.as(m.key).get('/v1/account')).body.account).toEqual(before);
  });

  it("the recipient's pick with a control character in the item id is 400, and the reward keeps its value", async () => {
    const sent = await t.api.as(m.key).post('/v1/rewards', choiceReward(2_000));
    const pick = await new RecipientClient(t).pick(tokenOf(sent.body.redemptionUrl), { utid: 'U\u00071', amountCents: 500 });
    expectRefused(pick, 'utid');
    expect((await t.api.as(m.key).get(`/v1/rewards/${sent.body.reward.id}`)).body.reward.remainingValueCents).toBe(2_000);
  });

  it('operator commands refuse control characters in account names, e-mails, key names, app names and redirect URIs', async () => {
    const merchants = t.app.get(MerchantService);
    await expect(merchants.createMerchant({ name: 'Acme\u001b', email: 'ops@example.test', password: 'long enough pw' })).rejects.toMatchObject({
      issues: [{ path: 'name', message: expect.stringContaining('control characters') }],
    });
    await expect(merchants.createMerchant({ name: 'Acme', email: 'ops\u0001@example.test', password: 'long enough pw' })).rejects.toMatchObject({
      issues: [{ path: 'email' }],
    });
    await expect(t.app.get(ApiKeyService).create(m.accountId, ['read'], 'ci\nkey')).rejects.toMatchObject({
      issues: [{ path: 'name', message: expect.stringContaining('control characters') }],
    });
    const clients = t.app.get(OAuthClientService);
    await expect(clients.create({ name: 'App\u0007', redirectUris: ['https://app.example.com/cb'], scopes: ['rewards:read'] })).rejects.toMatchObject({
      issues: [{ path: 'name', message: expect.stringContaining('control characters') }],
    });
    await expect(clients.create({ name: 'App', redirectUris: ['https://app.example.com/c\tb'], scopes: ['rewards:read'] })).rejects.toMatchObject({
      issues: [{ path: 'redirectUris', message: expect.stringContaining('control characters') }],
    });
  });
});
