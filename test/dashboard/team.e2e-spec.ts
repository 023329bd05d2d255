import { DataSource } from 'typeorm';
import { CREDENTIALS_REVOKED_CHANNEL } from '@app/auth';
import { PgNotifications } from '@app/core';
import { DashboardClient } from '../support/dashboard-client';
import { addMember, signedIn } from '../support/dashboard';
import { eventually } from '../support/processes';
import { SmtpSink } from '../support/smtp-sink';
import { isolatedDatabase, SeededMerchant, seedMerchant, startTestApp, TestApp } from '../support/test-app';

describe('Dashboard: team and invitations', () => {
  const smtp = new SmtpSink();
  let t: TestApp;
  let db: DataSource;

  beforeAll(async () => {
    t = await startTestApp({ env: { SMTP_URL: await smtp.start() } });
    db = t.app.get(DataSource);
  });
  afterAll(async () => {
    await t.close();
    await smtp.stop();
  });

  /** Invites `email` as `role` and returns the token of the link that arrived by e-mail. */
  async function invite(client: DashboardClient, email: string, role: string): Promise<string> {
    const res = await client.post('/dashboard/api/invitations', { email, role });
    expect(res.status).toBe(201);
    const mail = await smtp.waitFor((m) => m.to.toLowerCase().includes(email.toLowerCase()));
    const link = new RegExp(`${t.baseUrl}/dashboard/invitations/([A-Za-z0-9]+)`).exec(mail.text);
    expect(link).not.toBeNull();
    return link![1];
  }

  describe('an invitation', () => {
    let owner: SeededMerchant;
    let ownerClient: DashboardClient;
    beforeAll(async () => {
      owner = await seedMerchant(t, { name: 'Invitation Test Co' });
      ownerClient = await signedIn(t, owner);
    });

    it('is e-mailed, shown without a session, accepted by a new user once, who then is in the team', async () => {
      const token = await invite(ownerClient, 'New.Colleague@Example.test', 'developer');
      const listed = await ownerClient.get('/dashboard/api/invitations');
      expect(listed.body.invitations[0]).toMatchObject({ email: 'new.colleague@example.test', role: 'developer' });
      const expiresIn = Date.parse(listed.body.invitations[0].expiresAt) - Date.parse(listed.body.invitations[0].createdAt);
      expect(expiresIn).toBe(7 * 24 * 3600 * 1000);

      const visitor = new DashboardClient(t.baseUrl);
      const preview = await visitor.get(`/dashboard/api/invitations/${token}`);
      expect(preview.status).toBe(200);
      expect(preview.body).toEqual({
        invitation: { email: 'new.colleague@example.test', accountName: 'Invitation Test Co', role: 'developer', existingUser: false },
      });
      // A short or common password is refused, and the invitation still stands.
      const short = await visitor.post(`/dashboard/api/invitations/${token}/accept`, { password: 'too short' });
      expect(short.status).toBe(400);
      expect(short.body.issues[0].path).toBe('password');
      const common = await visitor.post(`/dashboard/api/invitations/${token}/accept`, { password: 'password1234' });
      expect(common.status).toBe(400);

      const accepted = await visitor.post(`/dashboard/api/invitations/${token}/accept`, { password: 'a very private passphrase' });
      expect(accepted.status).toBe(201);
      expect(accepted.body).toMatchObject({
        user: { email: 'new.colleague@example.test' },
        memberships: [{ accountId: owner.accountId, role: 'developer' }],
        currentAccountId: owner.accountId,
      });
      // The session reports what the developer may do, and no more.
      expect(accepted.body.scopes).toEqual(expect.arrayContaining(['rewards:write', 'webhooks:write', 'api_keys:manage']));
      expect(accepted.body.scopes).not.toContain('team:manage');
      expect(visitor.cookie).toMatch(/^dashboard_session=/);
      expect((await visitor.get('/dashboard/api/api-keys')).status).toBe(200);

      // Used: a second use is 404, and it is no longer listed.
      const again = await new DashboardClient(t.baseUrl).post(`/dashboard/api/invitations/${token}/accept`, { password: 'another passphrase 123' });
      expect(again.status).toBe(404);
      expect((await new DashboardClient(t.baseUrl).get(`/dashboard/api/invitations/${token}`)).status).toBe(404);
      expect((await ownerClient.get('/dashboard/api/invitations')).body.invitations).toEqual([]);
      const members = await ownerClient.get('/dashboard/api/members');
      expect(members.body.members.map((m: { email: string; role: string }) => [m.email, m.role])).toEqual([
        ['new.colleague@example.test', 'developer'],
        [owner.email.toLowerCase(), 'owner'],
      ]);
      // The token is stored only as a hash.
      expect(await db.query(`SELECT 1 FROM invitations WHERE token_hash = $1`, [token])).toEqual([]);
    });

    it('a revocation is audited once, naming who revoked it and whom the invitation was for', async () => {
      await invite(ownerClient, 'withdrawn@example.test', 'admin');
      const { invitations } = (await ownerClient.get('/dashboard/api/invitations')).body;
      const id = invitations.find((i: { email: string }) => i.email === 'withdrawn@example.test').id;
      expect((await ownerClient.delete(`/dashboard/api/invitations/${id}`)).status).toBe(204);
      expect((await ownerClient.delete(`/dashboard/api/invitations/${id}`)).status).toBe(404);
      const log = await ownerClient.get('/dashboard/api/audit-log?action=invitation.revoked');
      expect(log.body.entries).toEqual([
        expect.objectContaining({
          actor: { type: 'user', id: owner.userId, label: owner.email.toLowerCase() },
          targetType: 'invitation',
          targetId: id,
          metadata: { email: 'withdrawn@example.test', role: 'admin' },
        }),
      ]);
    });

    it('names who sent it; resending e-mails a new link, the earlier one stops working, and it is audited', async () => {
      const first = await invite(ownerClient, 'again@example.test', 'viewer');
      const sent = await smtp.waitFor((m) => m.to.includes('again@example.test'));
      expect(sent.subject).toBe(`${owner.email.toLowerCase()} invited you to Invitation Test Co`);
      expect(sent.text).toContain(`${owner.email.toLowerCase()} invited you to join Invitation Test Co as viewer.`);
      const { invitations } = (await ownerClient.get('/dashboard/api/invitations')).body;
      const id = invitations.find((i: { email: string }) => i.email === 'again@example.test').id;
      // Two days on the clock of the database: the new link counts its 7 days from the resend.
      await db.query(`UPDATE invitations SET expires_at = expires_at - interval '2 days' WHERE id = $1`, [id]);

      const resent = await ownerClient.post(`/dashboard/api/invitations/${id}/resend`);
      expect(resent.status).toBe(201);
      expect(resent.body.invitation).toMatchObject({ id, email: 'again@example.test', role: 'viewer' });
      expect(Date.parse(resent.body.invitation.expiresAt) - Date.now()).toBeGreaterThan(7 * 24 * 3600_000 - 60_000);
      const mails = await smtp.waitFor((m) => m.to.includes('again@example.test') && !m.text.includes(first));
      const second = new RegExp(`${t.baseUrl}/dashboard/invitations/([A-Za-z0-9]+)`).exec(mails.text)![1];
      expect(second).not.toBe(first);
      const visitor = new DashboardClient(t.baseUrl);
      expect((await visitor.get(`/dashboard/api/invitations/${first}`)).status).toBe(404);
      expect((await visitor.get(`/dashboard/api/invitations/${second}`)).status).toBe(200);
      expect((await ownerClient.get('/dashboard/api/invitations')).body.invitations.filter((i: { id: string }) => i.id === id)).toHaveLength(1);
      const log = await ownerClient.get('/dashboard/api/audit-log?action=invitation.resent');
      expect(log.body.entries).toEqual([
        expect.objectContaining({ actor: expect.objectContaining({ id: owner.userId }), targetId: id, metadata: { email: 'again@example.test', role: 'viewer' } }),
      ]);

      // Revoked: nothing to resend, nothing sent.
      expect((await ownerClient.delete(`/dashboard/api/invitations/${id}`)).status).toBe(204);
      const gone = await ownerClient.post(`/dashboard/api/invitations/${id}/resend`);
      expect(gone.status).toBe(404);
      expect((await visitor.get(`/dashboard/api/invitations/${second}`)).status).toBe(404);
    });

    it('revoked or expired: 404', async () => {
      const revokedToken = await invite(ownerClient, 'revoked@example.test', 'viewer');
      const { invitations } = (await ownerClient.get('/dashboard/api/invitations')).body;
      const id = invitations.find((i: { email: string }) => i.email === 'revoked@example.test').id;
      expect((await ownerClient.delete(`/dashboard/api/invitations/${id}`)).status).toBe(204);
      expect((await ownerClient.delete(`/dashboard/api/invitations/${id}`)).status).toBe(404);
      const visitor = new DashboardClient(t.baseUrl);
      expect((await visitor.get(`/dashboard/api/invitations/${revokedToken}`)).status).toBe(404);
      expect((await visitor.post(`/dashboard/api/invitations/${revokedToken}/accept`, { password: 'a very private passphrase' })).status).toBe(404);

      const expiredToken = await invite(ownerClient, 'expired@example.test', 'viewer');
      await db.query(`UPDATE invitations SET expires_at = now() - interval '1 second' WHERE email = 'expired@example.test'`);
      expect((await visitor.get(`/dashboard/api/invitations/${expiredToken}`)).status).toBe(404);
      expect((await visitor.post(`/dashboard/api/invitations/${expiredToken}/accept`, { password: 'a very private passphrase' })).status).toBe(404);
    });

    it('an existing user accepts signed in as themselves, and the session moves to the account', async () => {
      const other = await seedMerchant(t);
      const token = await invite(ownerClient, other.email, 'viewer');
      const visitor = new DashboardClient(t.baseUrl);
      expect((await visitor.get(`/dashboard/api/invitations/${token}`)).body.invitation.existingUser).toBe(true);
      // Not signed in: no password can stand in for theirs.
      expect((await visitor.post(`/dashboard/api/invitations/${token}/accept`, { password: 'a very private passphrase' })).status).toBe(401);
      // Signed in as someone else: refused.
      expect((await ownerClient.post(`/dashboard/api/invitations/${token}/accept`, {})).status).toBe(403);
      const them = await signedIn(t, other);
      const accepted = await them.post(`/dashboard/api/invitations/${token}/accept`, {});
      expect(accepted.status).toBe(201);
      expect(accepted.body.currentAccountId).toBe(owner.accountId);
      expect(accepted.body.memberships.map((m: { accountId: string }) => m.accountId).sort()).toEqual([owner.accountId, other.accountId].sort());
      expect((await them.get('/v1/account')).body.account.id).toBe(owner.accountId);
    });

    it('a developer may not invite (403); an admin may not invite an owner (403)', async () => {
      const developer = await signedIn(t, await addMember(t, owner.accountId, 'developer'));
      expect((await developer.post('/dashboard/api/invitations', { email: 'x@example.test', role: 'viewer' })).status).toBe(403);
      const admin = await signedIn(t, await addMember(t, owner.accountId, 'admin'));
      expect((await admin.post('/dashboard/api/invitations', { email: 'x@example.test', role: 'owner' })).status).toBe(403);
      expect((await admin.post('/dashboard/api/invitations', { email: 'x@example.test', role: 'admin' })).status).toBe(201);
    });
  });

  describe('roles and owners', () => {
    it('the last owner can be neither demoted nor removed (422); with a second owner, both work', async () => {
      const owner = await seedMerchant(t);
      const client = await signedIn(t, owner);
      const demote = await client.patch(`/dashboard/api/members/${owner.userId}`, { role: 'admin' });
      expect(demote.status).toBe(422);
      expect(demote.body.error).toBe('validation');
      expect((await client.delete(`/dashboard/api/members/${owner.userId}`)).status).toBe(422);

      const second = await addMember(t, owner.accountId, 'admin');
      const promoted = await client.patch(`/dashboard/api/members/${second.userId}`, { role: 'owner' });
      expect(promoted.status).toBe(200);
      expect(promoted.body.member).toMatchObject({ userId: second.userId, role: 'owner' });
      expect((await client.patch(`/dashboard/api/members/${owner.userId}`, { role: 'admin' })).status).toBe(200);
    });

    it('two owners demoting each other at the same moment: one wins, one owner is left', async () => {
      const first = await seedMerchant(t);
      const second = await addMember(t, first.accountId, 'owner');
      const [a, b] = await Promise.all([signedIn(t, first), signedIn(t, second)]);
      const results = await Promise.all([
        a.patch(`/dashboard/api/members/${second.userId}`, { role: 'admin' }),
        b.patch(`/dashboard/api/members/${first.userId}`, { role: 'admin' }),
      ]);
      // The loser's role is read under the lock: no longer an owner, they may not demote one (403).
      expect(results.map((res) => res.status).sort()).toEqual([200, 403]);
      const members = (await (results[0].status === 200 ? a : b).get('/dashboard/api/members')).body.members;
      expect(members.filter((m: { role: string }) => m.role === 'owner')).toHaveLength(1);
    });

    it('an admin may not make, demote or remove an owner (403)', async () => {
      const owner = await seedMerchant(t);
      const admin = await signedIn(t, await addMember(t, owner.accountId, 'admin'));
      const developer = await addMember(t, owner.accountId, 'developer');
      expect((await admin.patch(`/dashboard/api/members/${developer.userId}`, { role: 'owner' })).status).toBe(403);
      expect((await admin.patch(`/dashboard/api/members/${owner.userId}`, { role: 'viewer' })).status).toBe(403);
      expect((await admin.delete(`/dashboard/api/members/${owner.userId}`)).status).toBe(403);
      expect((await admin.patch(`/dashboard/api/members/${developer.userId}`, { role: 'viewer' })).status).toBe(200);
      expect((await admin.patch(`/dashboard/api/members/usr_unknown`, { role: 'viewer' })).status).toBe(404);
      expect((await admin.patch(`/dashboard/api/members/${developer.userId}`, { role: 'superuser' })).status).toBe(400);
    });
  });

  describe('changes reach open sessions at once', () => {
    // Its own database and a second app on it, as two API processes: the change is made through
    // one and must be honoured by the other, which has the member's session cached.
    let a: TestApp;
    let b: TestApp;
    beforeAll(async () => {
      const env = { ...(await isolatedDatabase()) };
      [a, b] = await Promise.all([startTestApp({ env }), startTestApp({ env })]);
    });
    afterAll(async () => {
      await Promise.all([a.close(), b.close()]);
    });
    const listening = (app: TestApp) =>
      eventually(async () => app.app.get(PgNotifications).live(CREDENTIALS_REVOKED_CHANNEL) || undefined, 5_000, 20);

    it("a role change and a removal take effect on the member's session on every instance", async () => {
      const owner = await seedMerchant(a);
      const ownerClient = await signedIn(a, owner);
      const person = await addMember(a, owner.accountId, 'developer');
      const member = await signedIn(b, person);
      expect((await member.get('/dashboard/api/api-keys')).status).toBe(200);
      await listening(b);
      expect((await member.get('/dashboard/api/api-keys')).status).toBe(200); // now from memory

      expect((await ownerClient.patch(`/dashboard/api/members/${person.userId}`, { role: 'viewer' })).status).toBe(200);
      await eventually(async () => (await member.get('/dashboard/api/api-keys')).status === 403 || undefined, 2_000, 20);
      expect((await member.get('/v1/account')).status).toBe(200);
      // The session body follows the new role, so the web app stops offering the developer's pages.
      expect((await member.get('/dashboard/api/session')).body.scopes).not.toContain('api_keys:manage');

      expect((await ownerClient.delete(`/dashboard/api/members/${person.userId}`)).status).toBe(204);
      await eventually(async () => (await member.get('/v1/account')).status === 401 || undefined, 2_000, 20);
      expect((await member.get('/dashboard/api/members')).status).toBe(401);
      // The session lives on, with no account left to act on.
      const session = await member.get('/dashboard/api/session');
      expect(session.status).toBe(200);
      expect(session.body).toMatchObject({ currentAccountId: null, memberships: [], scopes: [] });
      expect((await ownerClient.get('/dashboard/api/members')).body.members.map((m: { userId: string }) => m.userId)).toEqual([owner.userId]);
    });

    it("a member removed from one of two accounts: the session moves to the other", async () => {
      const first = await seedMerchant(a, { name: 'AAA first' });
      const second = await seedMerchant(a, { name: 'BBB second' });
      const person = await addMember(a, first.accountId, 'admin');
      await a.app.get(DataSource).query(`INSERT INTO memberships (account_id, user_id, role) VALUES ($1, $2, 'viewer')`, [second.accountId, person.userId]);
      const member = await signedIn(a, person);
      expect((await member.get('/v1/account')).body.account.id).toBe(first.accountId);
      expect((await (await signedIn(a, first)).delete(`/dashboard/api/members/${person.userId}`)).status).toBe(204);
      expect((await member.get('/dashboard/api/session')).body.currentAccountId).toBe(second.accountId);
      expect((await member.get('/v1/account')).body.account.id).toBe(second.accountId);
    });
  });
});
