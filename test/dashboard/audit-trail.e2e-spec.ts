import type { EntityManager } from 'typeorm';
import { AuditEntry, AuditTrail } from '@app/auth';
import { DashboardClient } from '../support/dashboard-client';
import { addMember, signedIn } from '../support/dashboard';
import { SmtpSink } from '../support/smtp-sink';
import { seedMerchant, startTestApp, TestApp } from '../support/test-app';

/** Stands in for the audit log store: keeps each entry and whether it came inside a transaction. */
class RecordingAuditTrail extends AuditTrail {
  readonly entries: (AuditEntry & { inTransaction: boolean })[] = [];
  async record(manager: EntityManager, entry: AuditEntry): Promise<void> {
    this.entries.push({ ...entry, inTransaction: manager.queryRunner?.isTransactionActive === true });
  }
}

describe('Dashboard: audited actions go through the AuditTrail port, inside their transaction', () => {
  const trail = new RecordingAuditTrail();
  const smtp = new SmtpSink();
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ env: { SMTP_URL: await smtp.start() }, overrides: [{ provide: AuditTrail, useValue: trail }] });
  });
  afterAll(async () => {
    await t.close();
    await smtp.stop();
  });

  it('records who did what to what, from where, in the same transaction as the change', async () => {
    const owner = await seedMerchant(t);
    const ownerEmail = owner.email.toLowerCase();
    await new DashboardClient(t.baseUrl).post('/dashboard/api/session', { email: owner.email, password: 'wrong password here' });
    await new DashboardClient(t.baseUrl).post('/dashboard/api/session', { email: 'unknown-person@example.test', password: 'wrong password here' });
    const client = await signedIn(t, owner);
    const key = (await client.post('/dashboard/api/api-keys', { name: 'audited', scopes: ['read'] })).body.apiKey;
    await client.delete(`/dashboard/api/api-keys/${key.id}`);
    await client.post('/dashboard/api/invitations', { email: 'joiner@example.test', role: 'viewer' });
    const mail = await smtp.waitFor((m) => m.to.includes('joiner@example.test'));
    const token = /\/dashboard\/invitations\/([A-Za-z0-9]+)/.exec(mail.text)![1];
    const joiner = await new DashboardClient(t.baseUrl).post(`/dashboard/api/invitations/${token}/accept`, { password: 'a joiner passphrase' });
    const joinerId = joiner.body.user.id;
    await client.patch(`/dashboard/api/members/${joinerId}`, { role: 'developer' });
    expect((await client.patch(`/dashboard/api/members/${owner.userId}`, { role: 'admin' })).status).toBe(422); // not audited: nothing changed
    await client.delete(`/dashboard/api/members/${joinerId}`);
    const other = await addMember(t, owner.accountId, 'viewer');
    await (await signedIn(t, other)).post('/dashboard/api/me/password', { currentPassword: other.password, newPassword: 'another passphrase 99' });

    const mine = trail.entries.filter((entry) => entry.accountId === owner.accountId);
    expect(mine.every((entry) => entry.inTransaction)).toBe(true);
    expect(mine.map((entry) => entry.action)).toEqual([
      'session.sign_in_failed',
      'session.signed_in',
      'api_key.created',
      'api_key.revoked',
      'member.invited',
      'member.joined',
      'member.role_changed',
      'member.removed',
      'session.signed_in',
      'password.changed',
    ]);
    expect(mine[2]).toMatchObject({
      actor: { type: 'user', id: owner.userId, label: ownerEmail },
      targetType: 'api_key',
      targetId: key.id,
      metadata: { name: 'audited', scopes: ['read'] },
      ipAddress: expect.stringMatching(/127\.0\.0\.1/),
    });
    expect(mine[6]).toMatchObject({ targetId: joinerId, metadata: { from: 'viewer', to: 'developer' } });
    // A failed sign-in with an unknown e-mail has no account to be audited in.
    expect(trail.entries.some((entry) => entry.actor.label === 'unknown-person@example.test')).toBe(false);
  });
});
