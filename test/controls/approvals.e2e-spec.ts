import { DataSource } from 'typeorm';
import { Sweepers } from '@app/core';
import { APPROVAL_EXPIRY_SWEEP } from '../../libs/rewards/src/reward-background.jobs';
import { addMember, signedIn } from '../support/dashboard';
import { expectLedgerInvariants } from '../support/ledger-invariants';
import { eventually } from '../support/processes';
import { connect, registerApp } from '../support/oauth';
import { RecipientClient, tokenOf } from '../support/redemption';
import { catalogPicks, choiceReward, fixedReward, fund } from '../support/rewards';
import { SmtpSink } from '../support/smtp-sink';
import { WebhookReceiver } from '../support/webhook-receiver';
import { isolatedDatabase, SeededMerchant, seedMerchant, startTestApp, startTestWorker, TestApp, TestWorker } from '../support/test-app';

/** Four-eyes approvals (docs/controls.md, Approvals). */
describe('Approvals', () => {
  const smtp = new SmtpSink();
  let receiver: WebhookReceiver;
  let t: TestApp;
  let worker: TestWorker;
  let db: DataSource;
  let recipientSide: RecipientClient;

  beforeAll(async () => {
    receiver = await new WebhookReceiver().start();
    t = await startTestApp({ env: { ...(await isolatedDatabase()), SMTP_URL: await smtp.start(), WEBHOOK_RETRY_BASE_MS: '50' } });
    worker = await startTestWorker(t);
    db = t.app.get(DataSource);
    recipientSide = new RecipientClient(t);
  });
  afterAll(async () => {
    await worker?.close();
    await t?.close();
    await smtp.stop();
    await receiver.close(); // fails the suite if a delivery broke the contract
  });

  /** A funded merchant whose sends of $100 or more need approval, and an admin to decide. */
  const setUp = async () => {
    const m = await seedMerchant(t);
    await fund(t, m, 100_000);
    const put = await t.api.as(m.key).put('/v1/account/approval-settings', { approvalSettings: { thresholdCents: 10_000 } });
    expect(put.status).toBe(200);
    const admin = await signedIn(t, await addMember(t, m.accountId, 'admin'));
    return { m, admin };
  };
  const send = async (m: SeededMerchant, body: Record<string, unknown>) => {
    const res = await t.api.as(m.key).post('/v1/rewards', body);
    expect(res.status).toBe(201);
    return res.body as { reward: any; redemptionUrl: string };
  };
  const reward = async (m: SeededMerchant, id: string) => (await t.api.as(m.key).get(`/v1/rewards/${id}`)).body.reward;
  const wallet = async (m: SeededMerchant) => (await t.api.as(m.key).get('/v1/wallet')).body.wallet;
  const eventTypes = async (id: string) =>
    ((await db.query(`SELECT type FROM events WHERE data->>'id' = $1 ORDER BY seq`, [id])) as { type: string }[]).map((e) => e.type);

  it('settings: read and replaced with account scopes (OAuth apps only read them); out of range is 400; the audit log records the change', async () => {
    const m = await seedMerchant(t);
    expect((await t.api.as(m.readKey).get('/v1/account/approval-settings')).body).toEqual({ approvalSettings: { thresholdCents: null } });
    expect((await t.api.as(m.readKey).put('/v1/account/approval-settings', { approvalSettings: { thresholdCents: 5 } })).status).toBe(403);
    for (const thresholdCents of [0, 100_000_001, 1.5, '100']) {
      const res = await t.api.as(m.key).put('/v1/account/approval-settings', { approvalSettings: { thresholdCents } });
      expect(res.status).toBe(400);
      expect(res.body.issues.length).toBeGreaterThan(0);
    }
    expect((await t.api.as(m.key).put('/v1/account/approval-settings', { approvalSettings: { thresholdCents: 25_000 } })).body).toEqual({
      approvalSettings: { thresholdCents: 25_000 },
    });
    expect((await t.api.as(m.readKey).get('/v1/account/approval-settings')).body).toEqual({ approvalSettings: { thresholdCents: 25_000 } });
    const [entry] = await db.query(`SELECT metadata FROM audit_log WHERE account_id = $1 AND action = 'approval_settings.updated'`, [m.accountId]);
    expect(entry.metadata).toMatchObject({ thresholdCents: 25_000, previousThresholdCents: null });

    // An OAuth app reads the setting but cannot change it; its sends wait like any other's.
    await fund(t, m, 50_000);
    const app = await registerApp(t, ['account:read', 'rewards:write']);
    const tokens = await connect(t, app, m, 'account:read rewards:write');
    const asApp = t.api.as(tokens.access_token);
    expect((await asApp.get('/v1/account/approval-settings')).body).toEqual({ approvalSettings: { thresholdCents: 25_000 } });
    expect((await asApp.put('/v1/account/approval-settings', { approvalSettings: { thresholdCents: null } })).status).toBe(403);
    const byApp = await asApp.post('/v1/rewards', choiceReward(25_000));
    expect(byApp.status).toBe(201);
    expect(byApp.body.reward).toMatchObject({ status: 'CREATED', source: 'oauth', approval: { status: 'PENDING' } });

    expect((await t.api.as(m.key).put('/v1/account/approval-settings', { approvalSettings: { thresholdCents: null } })).status).toBe(200);
  });

  it('a send at the threshold waits: CREATED, value held, nothing reaches the recipient, the link offers nothing; one below goes', async () => {
    const { m } = await setUp();
    const hook = await t.api.as(m.key).post('/v1/webhook-endpoints', { url: receiver.url(`/approvals-${m.accountId}`), events: ['reward.approval_required'] });
    expect(hook.status).toBe(201);
    const below = await send(m, choiceReward(9_999));
    expect(below.reward).toMatchObject({ status: 'SENT', approval: null });

    const held = await send(m, choiceReward(10_000));
    expect(held.reward).toMatchObject({ status: 'CREATED', sentAt: null, approval: { status: 'PENDING', decidedBy: null, decidedAt: null } });
    expect(held.reward.events.map((e: { type: string }) => e.type)).toEqual(['reward.created', 'reward.approval_required']);
    expect(await eventTypes(held.reward.id)).toEqual(['reward.created', 'reward.approval_required']);
    expect((await wallet(m)).availableCents).toBe(100_000 - 9_999 - 10_000);
    expect((await db.query(`SELECT 1 FROM mail_jobs WHERE reward_id = $1`, [held.reward.id])).length).toBe(0);

    const token = tokenOf(held.redemptionUrl);
    const state = await recipientSide.state(token);
    expect(state.status).toBe(200);
    expect(state.body.cards).toEqual([]);
    expect(state.body.brands).toEqual([]);
    expect(state.body.reward).toMatchObject({ canPick: false, availableAt: null });
    const html = await recipientSide.page(token);
    expect(html.status).toBe(200);
    expect(html.body).toContain('This reward is not available yet.');
    expect((await reward(m, held.reward.id)).openedAt).toBeNull();
    const picks = await catalogPicks(t, m.key);
    expect((await recipientSide.pick(token, { utid: picks.variableUsd.utid, amountCents: picks.variableUsd.minCents! })).status).toBe(422);
    expect((await t.api.as(m.key).post(`/v1/rewards/${held.reward.id}/resend`)).status).toBe(422);

    // The e-mail of the send below the threshold went; none for the one waiting.
    await smtp.waitFor((mail) => mail.to.includes(below.reward.recipientEmail));
    // The webhook of the waiting send, checked against the contract by the receiver; none for the other.
    const delivered = await eventually(async () => receiver.at(`/approvals-${m.accountId}`)[0]);
    expect(delivered.json).toMatchObject({ type: 'reward.approval_required', data: { id: held.reward.id, status: 'CREATED', valueCents: 10_000 } });
    expect(receiver.at(`/approvals-${m.accountId}`)).toHaveLength(1);
    expect(smtp.messages.some((mail) => mail.to.includes(held.reward.recipientEmail))).toBe(false);
    await expectLedgerInvariants(db, m.accountId);
  });

  it('only an admin or owner other than the sender decides; keys cannot; approve sends it as a normal send', async () => {
    const { m, admin } = await setUp();
    const picks = await catalogPicks(t, m.key);
    // A FIXED send by a dashboard admin: its card is not ordered while it waits.
    const sender = admin;
    // The threshold at the catalog item's value, so this send needs approval.
    await t.api.as(m.key).put('/v1/account/approval-settings', { approvalSettings: { thresholdCents: picks.fixedUsd.valueCents } });
    const sent = await sender.post('/v1/rewards', fixedReward(picks.fixedUsd));
    expect(sent.status).toBe(201);
    const id: string = sent.body.reward.id;
    const waiting = await reward(m, id);
    expect(waiting).toMatchObject({ status: 'CREATED', approval: { status: 'PENDING' } });
    expect(waiting.issuedCards).toHaveLength(1);
    expect(waiting.issuedCards[0].status).toBe('PENDING');
    // The issuance sweep leaves a held card alone.
    await db.query(`UPDATE reward_cards SET created_at = now() - interval '1 hour' WHERE reward_id = $1`, [id]);
    await worker.app.get(Sweepers).run('reward-job-sweeper');
    expect((await db.query(`SELECT supplier_requested_at FROM reward_cards WHERE reward_id = $1`, [id]))[0].supplier_requested_at).toBeNull();

    const viewer = await signedIn(t, await addMember(t, m.accountId, 'viewer'));
    const developer = await signedIn(t, await addMember(t, m.accountId, 'developer'));
    expect((await viewer.post(`/dashboard/api/approvals/${id}/approve`)).status).toBe(403);
    expect((await developer.post(`/dashboard/api/approvals/${id}/approve`)).status).toBe(403);
    expect((await sender.post(`/dashboard/api/approvals/${id}/approve`)).status).toBe(403);
    const byKey = await fetch(`${t.baseUrl}/dashboard/api/approvals/${id}/approve`, { method: 'POST', headers: { authorization: `Bearer ${m.key}` } });
    expect(byKey.status).toBe(401);
    expect((await sender.get('/dashboard/api/approvals')).body.approvals).toEqual([
      expect.objectContaining({ reward: expect.objectContaining({ id }), createdBy: { type: 'user', id: expect.stringMatching(/^usr_/), label: expect.any(String) } }),
    ]);
    expect((await sender.get('/dashboard/api/approvals/count')).body).toEqual({ count: 1 });

    const owner = await signedIn(t, { email: m.email, password: m.password });
    const approved = await owner.post(`/dashboard/api/approvals/${id}/approve`);
    expect(approved.status).toBe(200);
    expect(approved.body.reward).toMatchObject({
      status: 'SENT',
      approval: { status: 'APPROVED', decidedBy: { type: 'user', id: m.userId, label: m.email.toLowerCase() }, decidedAt: expect.any(String) },
    });
    expect((await eventTypes(id)).slice(0, 3)).toEqual(['reward.created', 'reward.approval_required', 'reward.sent']);
    await smtp.waitFor((mail) => mail.to.includes(approved.body.reward.recipientEmail));
    await eventually(async () => ((await reward(m, id)).status === 'REDEEMED' ? true : undefined));

    expect((await owner.post(`/dashboard/api/approvals/${id}/approve`)).status).toBe(422);
    expect((await owner.post(`/dashboard/api/approvals/${id}/reject`)).status).toBe(422);
    const [entry] = await db.query(`SELECT actor_id, metadata FROM audit_log WHERE action = 'approval.decided' AND target_id = $1`, [id]);
    expect(entry).toMatchObject({ actor_id: m.userId, metadata: { decision: 'APPROVED' } });
    expect((await owner.get('/dashboard/api/approvals/count')).body).toEqual({ count: 0 });
    await expectLedgerInvariants(db, m.accountId);
  });

  it('reject cancels with the whole value back and reward.canceled; the audit log records it', async () => {
    const { m, admin } = await setUp();
    const held = await send(m, choiceReward(20_000));
    const rejected = await admin.post(`/dashboard/api/approvals/${held.reward.id}/reject`);
    expect(rejected.status).toBe(200);
    expect(rejected.body.reward).toMatchObject({ status: 'CANCELED', remainingValueCents: 0, approval: { status: 'REJECTED', decidedBy: { type: 'user' } } });
    expect(await eventTypes(held.reward.id)).toEqual(['reward.created', 'reward.approval_required', 'reward.canceled']);
    expect((await wallet(m)).availableCents).toBe(100_000);
    const [entry] = await db.query(`SELECT metadata FROM audit_log WHERE action = 'approval.decided' AND target_id = $1`, [held.reward.id]);
    expect(entry.metadata).toMatchObject({ decision: 'REJECTED' });
    await expectLedgerInvariants(db, m.accountId);
  });

  it('undecided after 30 days: the scheduler rejects it (decidedBy null)', async () => {
    const { m } = await setUp();
    const old = await send(m, choiceReward(10_000));
    const fresh = await send(m, choiceReward(10_000));
    await db.query(`UPDATE rewards SET created_at = now() - interval '30 days 1 minute' WHERE id = $1`, [old.reward.id]);
    await worker.app.get(Sweepers).run(APPROVAL_EXPIRY_SWEEP);
    expect(await reward(m, old.reward.id)).toMatchObject({ status: 'CANCELED', approval: { status: 'REJECTED', decidedBy: null, decidedAt: expect.any(String) } });
    expect(await reward(m, fresh.reward.id)).toMatchObject({ status: 'CREATED', approval: { status: 'PENDING' } });
    expect((await wallet(m)).availableCents).toBe(100_000 - 10_000);
    // Too late to decide the expired one: nothing moves again.
    const owner = await signedIn(t, { email: m.email, password: m.password });
    expect((await owner.post(`/dashboard/api/approvals/${old.reward.id}/approve`)).status).toBe(422);
    expect((await wallet(m)).availableCents).toBe(100_000 - 10_000);
    await expectLedgerInvariants(db, m.accountId);
  });

  it("another account's admin cannot decide a send: 404, and it still waits", async () => {
    const { m } = await setUp();
    const held = await send(m, choiceReward(20_000));
    const other = await setUp();
    for (const decision of ['approve', 'reject']) {
      expect((await other.admin.post(`/dashboard/api/approvals/${held.reward.id}/${decision}`)).status).toBe(404);
    }
    expect(await reward(m, held.reward.id)).toMatchObject({ status: 'CREATED', approval: { status: 'PENDING' } });
    expect((await wallet(m)).availableCents).toBe(100_000 - 20_000);
  });

  it('a decision racing a cancel: exactly one of them wins, the ledger balances', async () => {
    const { m, admin } = await setUp();
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push((await send(m, choiceReward(10_000))).reward.id);
    const outcomes = await Promise.all(
      ids.map(async (id, i) => {
        const decide = i % 2 === 0 ? 'reject' : 'approve';
        const [decision, cancel] = await Promise.all([admin.post(`/dashboard/api/approvals/${id}/${decide}`), t.api.as(m.key).post(`/v1/rewards/${id}/cancel`)]);
        return { id, decide, decision: decision.status, cancel: cancel.status };
      }),
    );
    for (const o of outcomes) {
      const final = await reward(m, o.id);
      expect(final.status).toBe('CANCELED');
      if (o.decide === 'reject') {
        // Either the rejection cancelled it (and the cancel found nothing open) or the cancel did (and the decision found nothing waiting).
        expect([o.decision, o.cancel].sort()).toEqual([200, 422]);
        expect(final.approval.status).toBe(o.decision === 200 ? 'REJECTED' : 'PENDING');
      } else if (o.decision === 200) {
        // Approved first: the cancel then cancels a sent reward.
        expect(o.cancel).toBe(200);
        expect(final.approval.status).toBe('APPROVED');
      } else {
        expect(o).toMatchObject({ decision: 422, cancel: 200 });
        expect(final.approval.status).toBe('PENDING');
      }
    }
    const figures = await expectLedgerInvariants(db, m.accountId);
    expect(figures.available).toBe(100_000);
    expect(figures.reserved).toBe(0);
  });
});
