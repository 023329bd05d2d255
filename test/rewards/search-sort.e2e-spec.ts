import { DataSource } from 'typeorm';
import { addMember, signedIn } from '../support/dashboard';
import { connect, registerApp } from '../support/oauth';
import { choiceReward, fund, recipient } from '../support/rewards';
import { isolatedDatabase, SeededMerchant, seedMerchant, startTestApp, TestApp } from '../support/test-app';

/**
 * Finding rewards (docs/rewards.md, Finding a reward; docs/pagination.md, Sorting): `recipient` is a
 * case-insensitive prefix of the e-mail, first or last name, within the caller's account only;
 * `sort` orders by creation or face value either way, ties broken by id, and cursors follow it.
 * Who sent a reward (`createdBy`, `created_by=`) and the audit entries of sends and resends.
 */
describe('rewards: search by recipient, sort, createdBy and the audit of sends', () => {
  let t: TestApp;
  let dataSource: DataSource;
  let m: SeededMerchant;
  let other: SeededMerchant;

  /** 150 rewards of `m` (and 150 of `other`), face values with many ties, names and e-mails in mixed case. */
  async function seed(): Promise<void> {
    await dataSource.query(
      `INSERT INTO rewards (id, account_id, type, status, face_value_cents, remaining_value_cents, currency, recipient_email,
                            recipient_first_name, recipient_last_name, source, created_at)
       SELECT 'rw_srch' || lpad(g::text, 5, '0') || substr(md5(random()::text), 1, 6), ($1::text[])[1 + g % 2], 'CHOICE', 'SENT',
              100 * (1 + g % 7), 100 * (1 + g % 7), 'USD',
              (ARRAY['Ada.Lovelace', 'grace', 'ALAN', 'a_b', 'a%c'])[1 + g % 5] || g || '@Example.test',
              (ARRAY['Ada', 'Grace', 'Alan', 'Edsger', 'Barbara'])[1 + (g / 5) % 5],
              CASE WHEN g % 3 = 0 THEN NULL ELSE (ARRAY['Hopper', 'Turing', 'Liskov'])[1 + g % 3] END,
              'api', now() - make_interval(mins => g)
         FROM generate_series(1, 300) AS g
        ORDER BY g DESC`,
      [[m.accountId, other.accountId]],
    );
  }

  async function truth(where: string, params: unknown[], order = 'seq DESC', account = m): Promise<string[]> {
    const rows: { id: string }[] = await dataSource.query(`SELECT id FROM rewards WHERE account_id = $1 ${where} ORDER BY ${order}`, [account.accountId, ...params]);
    return rows.map((r) => r.id);
  }

  /** Every page by page number, by starting_after forwards and by ending_before backwards: all three agree. */
  async function walk(query: string, pageSize = 7, account = m): Promise<{ ids: string[]; total: number; rewards: any[] }> {
    const api = t.api.as(account.readKey);
    const rewards: any[] = [];
    let total = -1;
    for (let page = 1; ; page++) {
      const res = await api.get(`/v1/rewards?${query}&page_size=${pageSize}&page=${page}`);
      expect(res.status).toBe(200);
      total = res.body.total;
      for (const r of res.body.rewards) rewards.push(r);
      if (!res.body.hasMore) break;
    }
    const ids = rewards.map((r) => r.id);
    const forward: string[] = [];
    for (let after: string | undefined; ; ) {
      const res = await api.get(`/v1/rewards?${query}&page_size=${pageSize}${after ? `&starting_after=${after}` : ''}`);
      expect(res.status).toBe(200);
      for (const r of res.body.rewards) forward.push(r.id);
      if (!res.body.hasMore) break;
      after = forward[forward.length - 1];
    }
    expect(forward).toEqual(ids);
    if (ids.length > 1) {
      // Backwards from the last item: each page is the items before the first one seen.
      const backward: string[] = [ids[ids.length - 1]];
      for (;;) {
        const res = await api.get(`/v1/rewards?${query}&page_size=${pageSize}&ending_before=${backward[0]}`);
        expect(res.status).toBe(200);
        backward.splice(0, 0, ...res.body.rewards.map((r: { id: string }) => r.id));
        if (!res.body.hasMore) break;
      }
      expect(backward).toEqual(ids);
    }
    return { ids, total, rewards };
  }

  beforeAll(async () => {
    t = await startTestApp({ env: { ...(await isolatedDatabase()), RATE_LIMIT_PER_MINUTE: '100000' } });
    dataSource = t.app.get(DataSource);
    m = await seedMerchant(t);
    other = await seedMerchant(t);
    await seed();
  }, 60_000);
  afterAll(() => t.close());

  it('recipient= is a case-insensitive prefix of the e-mail, first or last name, in this account only', async () => {
    const cases: [string, string[]][] = [
      ['ada', ['ada']],
      ['ADA.L', ['ada.l']],
      ['grac', ['grac']],
      ['Turi', ['turi']],
      ['hop', ['hop']],
      // LIKE's own characters are taken as text.
      ['a_', ['a\\_']],
      ['a%', ['a\\%']],
      ['zzz', ['zzz']],
    ];
    for (const [prefix, [like]] of cases) {
      const expected = await truth(
        `AND (lower(recipient_email) LIKE $2 OR lower(recipient_first_name) LIKE $2 OR lower(recipient_last_name) LIKE $2)`,
        [`${like}%`],
      );
      const { ids, total } = await walk(`recipient=${encodeURIComponent(prefix)}`, 25);
      expect({ prefix, ids, total }).toEqual({ prefix, ids: expected, total: expected.length });
    }
    // Not a substring search: "ovelace" is inside every Ada.Lovelace address and matches none.
    expect((await t.api.as(m.readKey).get('/v1/rewards?recipient=ovelace')).body.total).toBe(0);
    // Another account's rewards never match, whatever the prefix.
    const all = await walk('recipient=a', 50);
    const owners: { n: number }[] = await dataSource.query(`SELECT count(*)::int AS n FROM rewards WHERE id = ANY($1) AND account_id <> $2`, [all.ids, m.accountId]);
    expect(owners[0].n).toBe(0);
    // It combines with the other filters.
    const combined = await walk('recipient=grace&sort=-faceValueCents', 5);
    expect(combined.ids).toEqual(
      await truth(`AND (lower(recipient_email) LIKE 'grace%' OR lower(recipient_first_name) LIKE 'grace%' OR lower(recipient_last_name) LIKE 'grace%')`, [], 'face_value_cents DESC, id DESC'),
    );
  });

  it('a prefix matching more rewards than SPARSE_RECIPIENT_MATCHES is read along the list instead, with the same answers', async () => {
    const dense = await seedMerchant(t);
    await dataSource.query(
      `INSERT INTO rewards (id, account_id, type, status, face_value_cents, remaining_value_cents, currency, recipient_email,
                            recipient_first_name, source, created_at)
       SELECT 'rw_dens' || lpad(g::text, 5, '0') || substr(md5(random()::text), 1, 6), $1, 'CHOICE', 'SENT', 100 * (1 + g % 3), 100, 'USD',
              'zed' || g || '@example.test', 'Zoe', 'api', now() - make_interval(secs => g)
         FROM generate_series(1, 2100) AS g
        ORDER BY g DESC`,
      [dense.accountId],
    );
    const like = `AND (lower(recipient_email) LIKE $2 OR lower(recipient_first_name) LIKE $2)`;
    // zed: 2,100 matches (over the threshold); zed1: 1 + 10 + 100 + 1,000 + 100 = 1,211 (under it).
    for (const prefix of ['zed', 'ZED1', 'zo']) {
      for (const sort of ['-createdAt', 'faceValueCents']) {
        const order = sort === '-createdAt' ? 'seq DESC' : 'face_value_cents ASC, id ASC';
        const { ids, total } = await walk(`recipient=${prefix}&sort=${sort}`, 100, dense);
        const expected = await truth(like, [`${prefix.toLowerCase()}%`], order, dense);
        expect({ prefix, sort, total, same: ids.length === expected.length && ids.every((id, i) => id === expected[i]) }).toEqual({
          prefix,
          sort,
          total: expected.length,
          same: true,
        });
      }
    }
  }, 120_000);

  it('sort= orders by face value or creation, either way, ties broken by id; pages and cursors neither skip nor repeat', async () => {
    const orders: [string, string][] = [
      ['-faceValueCents', 'face_value_cents DESC, id DESC'],
      ['faceValueCents', 'face_value_cents ASC, id ASC'],
      ['-createdAt', 'seq DESC'],
      ['createdAt', 'seq ASC'],
    ];
    for (const [sort, order] of orders) {
      const { ids, total, rewards } = await walk(`sort=${sort}`);
      expect({ sort, ids }).toEqual({ sort, ids: await truth('', [], order) });
      expect(total).toBe(150);
      expect(new Set(ids).size).toBe(ids.length);
      const values = rewards.map((r) => r.faceValueCents);
      if (sort === '-faceValueCents') expect(values).toEqual([...values].sort((a, b) => b - a));
      if (sort === 'faceValueCents') expect(values).toEqual([...values].sort((a, b) => a - b));
    }
    // The default is -createdAt.
    expect((await walk('')).ids).toEqual(await truth('', []));
    // With a filter too.
    const withStatus = await walk('status=SENT&sort=faceValueCents', 11);
    expect(withStatus.ids).toEqual(await truth(`AND status = 'SENT'`, [], 'face_value_cents ASC, id ASC'));
  });

  it('bad sort, recipient and created_by values are 400 in the documented shape', async () => {
    const api = t.api.as(m.readKey);
    const bad: [string, string][] = [
      ['sort=amount', 'sort'],
      ['sort=-faceValue', 'sort'],
      ['sort=', 'sort'],
      ['recipient=', 'recipient'],
      [`recipient=${'a'.repeat(101)}`, 'recipient'],
      ['recipient=%01ab', 'recipient'],
      [`created_by=${'k'.repeat(101)}`, 'created_by'],
    ];
    for (const [query, path] of bad) {
      const res = await api.get(`/v1/rewards?${query}`);
      expect({ query, status: res.status, error: res.body.error, paths: res.body.issues?.map((i: { path: string }) => i.path) }).toEqual({
        query,
        status: 400,
        error: 'bad_request',
        paths: [path],
      });
      expect(typeof res.body.message).toBe('string');
    }
    // A cursor from another account is refused as any unknown id is.
    const [foreign] = await dataSource.query(`SELECT id FROM rewards WHERE account_id = $1 LIMIT 1`, [other.accountId]);
    expect((await api.get(`/v1/rewards?sort=faceValueCents&starting_after=${foreign.id}`)).status).toBe(400);
  });

  it('createdBy names the API key, the connected app or the dashboard user; created_by= filters by it; sends, bulk sends and resends are audited', async () => {
    const sender = await seedMerchant(t);
    await fund(t, sender, 100_000);
    const audit = async (action: string) =>
      (await dataSource.query(`SELECT * FROM audit_log WHERE account_id = $1 AND action = $2 ORDER BY seq`, [sender.accountId, action])) as any[];

    // An API key (named "test" by seedMerchant).
    const byKey = await t.api.as(sender.key).post('/v1/rewards', choiceReward(1_000, { recipient: recipient({ email: 'key@example.test' }) }));
    expect(byKey.status).toBe(201);
    expect(byKey.body.reward.createdBy).toEqual({ type: 'api_key', id: expect.stringMatching(/^key_/), label: 'test' });
    const keyId = byKey.body.reward.createdBy.id;

    // A connected app.
    const app = await registerApp(t, ['rewards:read', 'rewards:write']);
    const tokens = await connect(t, app, sender, 'rewards:write');
    const byApp = await t.api.as(tokens.access_token as string).post('/v1/rewards', choiceReward(1_000));
    expect(byApp.status).toBe(201);
    expect(byApp.body.reward.createdBy).toEqual({ type: 'oauth_app', id: app.clientId, label: expect.stringMatching(/^Test App /) });

    // A dashboard user, single and bulk.
    const admin = await addMember(t, sender.accountId, 'admin');
    const dashboard = await signedIn(t, admin);
    const byUser = await dashboard.post('/v1/rewards', choiceReward(1_000));
    expect(byUser.status).toBe(201);
    expect(byUser.body.reward.createdBy).toEqual({ type: 'user', id: admin.userId, label: admin.email });
    const bulk = await dashboard.post('/v1/rewards/bulk', { rewards: [choiceReward(500), choiceReward(700), { type: 'CHOICE' }] });
    expect(bulk.status).toBe(207);
    expect(bulk.body.sent).toBe(2);

    // Read back, the same createdBy; created_by= lists one sender's rewards.
    const read = t.api.as(sender.readKey);
    expect((await read.get(`/v1/rewards/${byKey.body.reward.id}`)).body.reward.createdBy).toEqual(byKey.body.reward.createdBy);
    expect((await read.get(`/v1/rewards/${byApp.body.reward.id}`)).body.reward.createdBy).toEqual(byApp.body.reward.createdBy);
    const byAdmin = await read.get(`/v1/rewards?created_by=${admin.userId}`);
    expect(byAdmin.body.total).toBe(3);
    expect(byAdmin.body.rewards.every((r: any) => r.createdBy.id === admin.userId && r.createdBy.label === admin.email)).toBe(true);
    expect((await read.get(`/v1/rewards?created_by=${keyId}`)).body.rewards.map((r: any) => r.id)).toEqual([byKey.body.reward.id]);
    // Another account's sender matches nothing here.
    expect((await t.api.as(other.readKey).get(`/v1/rewards?created_by=${admin.userId}`)).body.total).toBe(0);

    // Every path fills the columns.
    const unfilled: { n: number }[] = await dataSource.query(
      `SELECT count(*)::int AS n FROM rewards WHERE account_id = $1 AND (created_by_type IS NULL OR created_by_id IS NULL)`,
      [sender.accountId],
    );
    expect(unfilled[0].n).toBe(0);

    // reward.created: one per single send (target the reward), one per bulk request with its count.
    const created = await audit('reward.created');
    expect(created.map((e) => [e.actor_type, e.target_id])).toEqual([
      ['api_key', byKey.body.reward.id],
      ['oauth_app', byApp.body.reward.id],
      ['user', byUser.body.reward.id],
      ['user', null],
    ]);
    expect(created[0].metadata).toEqual({ valueCents: 1_000, currency: 'USD', recipientEmail: 'key@example.test', type: 'CHOICE', source: 'api' });
    expect(created[0].actor_label).toMatch(/^test \(…/);
    expect(created[3].metadata).toEqual({ bulk: true, count: 2, failed: 1, valueCents: { USD: 1_200 }, source: 'dashboard' });
    expect(created[3].actor_label).toBe(admin.email);

    // A replay, a dry run and a bulk that sends nothing write no entry.
    const once = choiceReward(900);
    const again = await t.api.as(sender.key).post('/v1/rewards', once, { headers: { 'Idempotency-Key': 'search-sort-1' } });
    expect(again.status).toBe(201);
    expect((await t.api.as(sender.key).post('/v1/rewards', once, { headers: { 'Idempotency-Key': 'search-sort-1' } })).status).toBe(200);
    expect((await t.api.as(sender.key).post('/v1/rewards?dry_run=true', choiceReward(900))).status).toBe(200);
    expect((await t.api.as(sender.key).post('/v1/rewards/bulk', { rewards: [{ type: 'CHOICE' }] })).status).toBe(207);
    expect((await audit('reward.created')).length).toBe(5);

    // reward.resent, by whoever asked.
    expect((await dashboard.post(`/v1/rewards/${byKey.body.reward.id}/resend`)).status).toBe(200);
    expect((await t.api.as(sender.key).post(`/v1/rewards/${byUser.body.reward.id}/resend`)).status).toBe(200);
    const resent = await audit('reward.resent');
    expect(resent.map((e) => [e.actor_type, e.target_type, e.target_id, e.metadata.recipientEmail])).toEqual([
      ['user', 'reward', byKey.body.reward.id, 'key@example.test'],
      ['api_key', 'reward', byUser.body.reward.id, byUser.body.reward.recipientEmail],
    ]);
    // An unknown reward's resend changes nothing and writes nothing.
    expect((await dashboard.post('/v1/rewards/rw_unknown000000000000000/resend')).status).toBe(404);
    expect((await audit('reward.resent')).length).toBe(2);

    // The dashboard's audit log shows them.
    const owner = await signedIn(t, sender);
    const listed = await owner.get('/dashboard/api/audit-log?action=reward.created');
    expect(listed.status).toBe(200);
    expect(listed.body.total).toBe(5);
  }, 60_000);
});
