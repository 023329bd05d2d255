import { DataSource } from 'typeorm';
import { MAX_ISSUES, MAX_JSON_ARRAY_LENGTH } from '@app/core';
import { signedIn } from '../support/dashboard';
import { DashboardClient } from '../support/dashboard-client';
import { choiceReward, countRows, fund, recipient } from '../support/rewards';
import { SmtpSink } from '../support/smtp-sink';
import { SeededMerchant, seedMerchant, startTestApp, TestApp } from '../support/test-app';

/**
 * Input that used to cost the service more than it cost the sender, or that reached the database in a
 * form it refuses: each is a 400 in the error shape, small, naming the field (docs/errors.md).
 */
describe('input limits: amplified validation, ill-formed Unicode, null optional fields', () => {
  const smtp = new SmtpSink();
  let t: TestApp;
  let m: SeededMerchant;

  beforeAll(async () => {
    t = await startTestApp({ env: { SMTP_URL: await smtp.start() } });
    m = await seedMerchant(t);
    await fund(t, m, 100_000);
  });
  afterAll(async () => {
    await t.close();
    await smtp.stop();
  });

  const rewardCount = () => countRows(t.app.get(DataSource), 'SELECT 1 FROM rewards WHERE account_id = $1', [m.accountId]);

  describe('a body built to multiply validation issues', () => {
    it('100,000 strings where the recipient object goes: one small 400, not one issue per string', async () => {
      const body = `{"type":"CHOICE","valueCents":100,"recipient":${JSON.stringify(Array(100_000).fill('a'))}}`;
      expect(body.length).toBeGreaterThan(400_000);
      const res = await t.api.as(m.key).post('/v1/rewards', undefined, { rawBody: body });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ error: 'bad_request', issues: [{ path: 'recipient' }] });
      expect(res.text.length).toBeLessThan(2_000);
    });

    it('an array the size a route takes, where an object goes, is one issue naming the field', async () => {
      const res = await t.api.as(m.key).post('/v1/rewards', { type: 'CHOICE', valueCents: 100, recipient: Array(MAX_JSON_ARRAY_LENGTH).fill('a') });
      expect(res.status).toBe(400);
      expect(res.body.issues).toEqual([{ path: 'recipient', message: 'must be a JSON object' }]);
      // In a bulk item too, where each item is validated on its own.
      const bulk = await t.api.as(m.key).post('/v1/rewards/bulk', { rewards: [{ type: 'CHOICE', valueCents: 100, recipient: Array(900).fill('a') }] });
      expect(JSON.stringify(bulk.body).length).toBeLessThan(2_000);
      expect(JSON.stringify(bulk.body)).toContain('must be a JSON object');
    });

    it(`a request with thousands of invalid values lists at most ${MAX_ISSUES} issues and says more were left out`, async () => {
      // 50,000 unknown fields: each one is refused on its own.
      const unknown = Object.fromEntries(Array.from({ length: 50_000 }, (_, i) => [`f${i}`, 1]));
      const res = await t.api.as(m.key).post('/v1/rewards', choiceReward(100, unknown));
      expect(res.status).toBe(400);
      expect(res.body.issues).toHaveLength(MAX_ISSUES);
      expect(res.body.issues[0]).toEqual({ path: 'f0', message: expect.stringContaining('should not exist') });
      expect(res.body.message).toMatch(/; and 49900 more issues not listed$/);
      expect(res.text.length).toBeLessThan(20_000);
    });
  });

  describe('a lone UTF-16 surrogate in a string', () => {
    const withSurrogate = (path: string) =>
      JSON.stringify(choiceReward(1_000, { recipient: recipient(), message: 'Thank you' })).replace('Thank you', 'Thank \\ud800you').replace('"Ada"', path === 'recipient.firstName' ? '"A\\udc00da"' : '"Ada"');

    it('is 400 naming the field, and nothing is sent', async () => {
      const before = await rewardCount();
      const res = await t.api.as(m.key).post('/v1/rewards', undefined, { rawBody: withSurrogate('message') });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ error: 'bad_request', issues: [{ path: 'message', message: expect.stringContaining('lone surrogate') }] });
      const nested = await t.api.as(m.key).post('/v1/rewards', undefined, { rawBody: withSurrogate('recipient.firstName').replace('\\ud800', '') });
      expect(nested.status).toBe(400);
      expect(nested.body.issues).toEqual([expect.objectContaining({ path: 'recipient.firstName' })]);
      expect(await rewardCount()).toBe(before);
    });

    it('is 400 in a dry run too, which must answer what the send would', async () => {
      const res = await t.api.as(m.key).post('/v1/rewards?dry_run=true', undefined, { rawBody: withSurrogate('message') });
      expect(res.status).toBe(400);
      expect(res.body.issues).toEqual([expect.objectContaining({ path: 'message' })]);
      // A well-formed pair (an emoji written as two escapes) is fine.
      const emoji = await t.api.as(m.key).post('/v1/rewards?dry_run=true', undefined, { rawBody: withSurrogate('message').replace('\\ud800', '\\ud83c\\udf81') });
      expect(emoji.status).toBe(200);
    });
  });

  describe('null for a field that is optional but not nullable', () => {
    it('accepting an invitation with {"password": null} is 400 naming the field, and the invitation still stands', async () => {
      const owner = await signedIn(t, m);
      expect((await owner.post('/dashboard/api/invitations', { email: 'null.password@example.test', role: 'developer' })).status).toBe(201);
      const mail = await smtp.waitFor((message) => message.to.includes('null.password@example.test'));
      const token = new RegExp(`${t.baseUrl}/dashboard/invitations/([A-Za-z0-9]+)`).exec(mail.text)![1];

      const visitor = new DashboardClient(t.baseUrl);
      const res = await visitor.post(`/dashboard/api/invitations/${token}/accept`, { password: null });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ error: 'bad_request', issues: [{ path: 'password' }] });
      expect((await visitor.post(`/dashboard/api/invitations/${token}/accept`, { password: 'a very private passphrase' })).status).toBe(201);
    });

    it('is 400 on the API too, while a field documented as nullable still takes null', async () => {
      const res = await t.api.as(m.key).post('/v1/rewards', choiceReward(1_000, { campaign: null, recipient: recipient({ lastName: null }) }));
      expect(res.status).toBe(400);
      expect(res.body.issues).toEqual(
        expect.arrayContaining([{ path: 'campaign', message: expect.stringContaining('null') }, { path: 'recipient.lastName', message: expect.stringContaining('null') }]),
      );
      expect(res.body.issues).toHaveLength(2);
      const cleared = await t.api.as(m.key).patch('/v1/account/branding', { senderName: null, brandColor: null });
      expect(cleared.status).toBe(200);
    });
  });
});
