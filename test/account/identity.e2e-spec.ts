import { generate } from 'otplib';
import { DataSource } from 'typeorm';
import {
  AccountModule,
  IdentityActor,
  IdentityRepository,
  InvitationService,
  Joined,
  MembershipRole,
  MerchantService,
  PasswordHasher,
  TeamService,
  TotpService,
} from '@app/account';
import { AuthModule, Principal, SessionStore } from '@app/auth';
import { ApiError, randomToken } from '@app/core';
import { adminDataSource } from '../support/database-admin';
import { ServiceContext, startServiceContext } from '../support/service-context';
import { clockOverride, TestClock } from '../support/test-clock';

/**
 * libs/account's identity rules and repository (docs/dashboard.md, Team and invitations; Two-factor
 * sign-in; docs/architecture.md, Table ownership) on the real PostgreSQL and Redis, without HTTP: the
 * account module alone, called as the dashboard calls it.
 */
describe('identity (service tests)', () => {
  const clock = new TestClock();
  let ctx: ServiceContext;
  let db: DataSource;
  let identity: IdentityRepository;
  let team: TeamService;
  let invitations: InvitationService;
  let memberHash: string;

  beforeAll(async () => {
    ctx = await startServiceContext([AuthModule, AccountModule], { overrides: [clockOverride(clock)] });
    db = ctx.app.get(DataSource);
    identity = ctx.app.get(IdentityRepository);
    team = ctx.app.get(TeamService);
    invitations = ctx.app.get(InvitationService);
    memberHash = await ctx.app.get(PasswordHasher).hash('a member passphrase');
  });
  afterAll(() => ctx.close());
  afterEach(() => clock.reset());

  interface Person {
    userId: string;
    email: string;
  }

  const email = (what: string) => `${what}-${randomToken(6).toLowerCase()}@example.test`;

  /** A new account, named `name`, with its owner (made as the operator CLI makes it). */
  async function newAccount(name = `Account ${randomToken(4)}`): Promise<{ accountId: string; owner: Person }> {
    const owner = email('owner');
    const made = await ctx.app.get(MerchantService).createMerchant({ name, email: owner, password: 'an owner passphrase' });
    return { accountId: made.accountId, owner: { userId: made.userId, email: owner } };
  }

  async function newMember(accountId: string, role: MembershipRole): Promise<Person> {
    const address = email(role);
    const userId = await db.transaction(async (manager) => {
      const id = await identity.createUser(manager, address, memberHash);
      await identity.addMember(manager, accountId, id, role);
      return id;
    });
    return { userId, email: address };
  }

  /** How the dashboard calls in: the signed-in person acting on the account with their role. */
  const principalOf = (accountId: string, person: Person, role: MembershipRole): Principal => ({
    accountId,
    credentialKind: 'session',
    credentialId: `ses_${randomToken(6)}`,
    scopes: new Set(),
    user: { id: person.userId, email: person.email, role },
  });
  const actorOf = (person: Person): IdentityActor => ({ userId: person.userId, email: person.email, ipAddress: null });

  const roles = async (accountId: string) =>
    Object.fromEntries((await team.list(accountId)).map((member) => [member.email, member.role])) as Record<string, MembershipRole>;

  /** The status an API error would answer with, or the error itself when it is not one. */
  async function statusOf(work: Promise<unknown>): Promise<number | unknown> {
    try {
      await work;
      return 'no error';
    } catch (error) {
      return error instanceof ApiError ? error.status : error;
    }
  }

  describe('team rules', () => {
    it('the last owner can be neither demoted nor removed (422); with a second owner, the first may go', async () => {
      const { accountId, owner } = await newAccount();
      const admin = await newMember(accountId, 'admin');
      const asOwner = principalOf(accountId, owner, 'owner');

      expect(await statusOf(team.changeRole(asOwner, actorOf(owner), owner.userId, 'admin'))).toBe(422);
      expect(await statusOf(team.remove(asOwner, actorOf(owner), owner.userId))).toBe(422);
      expect(await roles(accountId)).toEqual({ [owner.email]: 'owner', [admin.email]: 'admin' });

      await team.changeRole(asOwner, actorOf(owner), admin.userId, 'owner');
      await team.changeRole(asOwner, actorOf(owner), owner.userId, 'viewer');
      expect(await roles(accountId)).toEqual({ [owner.email]: 'viewer', [admin.email]: 'owner' });
    });

    it('only an owner makes, demotes or removes an owner (403), judged by the role held now', async () => {
      const { accountId, owner } = await newAccount();
      const admin = await newMember(accountId, 'admin');
      const viewer = await newMember(accountId, 'viewer');
      // The admin's session still says owner: the rule reads the locked membership, not the session.
      const asAdmin = principalOf(accountId, admin, 'owner');
      expect(await statusOf(team.changeRole(asAdmin, actorOf(admin), owner.userId, 'viewer'))).toBe(403);
      expect(await statusOf(team.remove(asAdmin, actorOf(admin), owner.userId))).toBe(403);
      expect(await statusOf(team.changeRole(asAdmin, actorOf(admin), viewer.userId, 'owner'))).toBe(403);
      await team.changeRole(asAdmin, actorOf(admin), viewer.userId, 'developer');
      expect(await roles(accountId)).toEqual({ [owner.email]: 'owner', [admin.email]: 'admin', [viewer.email]: 'developer' });
    });

    it('two owners demoting each other at once: one wins and one owner is left', async () => {
      const { accountId, owner } = await newAccount();
      const other = await newMember(accountId, 'owner');
      const outcomes = await Promise.allSettled([
        team.changeRole(principalOf(accountId, owner, 'owner'), actorOf(owner), other.userId, 'admin'),
        team.changeRole(principalOf(accountId, other, 'owner'), actorOf(other), owner.userId, 'admin'),
      ]);
      expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(['fulfilled', 'rejected']);
      expect(Object.values(await roles(accountId)).sort()).toEqual(['admin', 'owner']);
    });

    it("a removed member's sessions on the account move to their first other account by name", async () => {
      const { accountId, owner } = await newAccount('Zulu removal');
      const person = await newMember(accountId, 'viewer');
      const other = await newAccount('Alpha elsewhere');
      await db.transaction((manager) => identity.addMember(manager, other.accountId, person.userId, 'developer'));
      const sessions = ctx.app.get(SessionStore);
      const { token } = await sessions.start('dashboard', { userId: person.userId, currentAccountId: accountId });
      await team.remove(principalOf(accountId, owner, 'owner'), actorOf(owner), person.userId);
      expect(await sessions.find('dashboard', token)).toMatchObject({ currentAccountId: other.accountId });
      expect(await db.transaction((manager) => identity.membershipsOf(manager, person.userId))).toEqual([
        { accountId: other.accountId, accountName: 'Alpha elsewhere', role: 'developer' },
      ]);
    });
  });

  describe('invitations', () => {
    /** Invites `address` as `role` by the account's owner; the link's token, as the e-mail would carry it. */
    async function invite(account: { accountId: string; owner: Person }, address: string, role: MembershipRole): Promise<string> {
      let token = '';
      await invitations.create(principalOf(account.accountId, account.owner, 'owner'), actorOf(account.owner), { email: address, role }, async (sent) => {
        token = sent.token;
      });
      return token;
    }

    const joinedVia = (token: string, input: { password?: string }, signedInUserId: string | null = null) =>
      invitations.accept(token, input, { signedInUserId, ipAddress: null }, async (_manager, joined: Joined) => joined);

    it('accepted by a new user once: one membership with the invited role; the link then is not found (404)', async () => {
      const account = await newAccount();
      const address = email('invitee');
      const token = await invite(account, address, 'developer');
      expect(await invitations.preview(token)).toMatchObject({ email: address, role: 'developer', existingUser: false });

      const joined = await joinedVia(token, { password: 'a new passphrase here' });
      expect(joined).toMatchObject({ accountId: account.accountId, newUser: true });
      expect(await roles(account.accountId)).toMatchObject({ [address]: 'developer' });
      expect(await identity.emailsOf([joined.userId])).toEqual(new Map([[joined.userId, address]]));

      expect(await statusOf(joinedVia(token, { password: 'a new passphrase here' }))).toBe(404);
      expect(await statusOf(invitations.preview(token))).toBe(404);
      expect(await invitations.list(account.accountId)).toEqual([]);
    });

    it('two accepts of one link at once make one user and one membership', async () => {
      const account = await newAccount();
      const address = email('racer');
      const token = await invite(account, address, 'viewer');
      const outcomes = await Promise.allSettled([joinedVia(token, { password: 'a new passphrase here' }), joinedVia(token, { password: 'a new passphrase here' })]);
      expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(['fulfilled', 'rejected']);
      const [{ count }] = await db.query(
        `SELECT count(*)::int AS count FROM memberships m JOIN users u ON u.id = m.user_id WHERE m.account_id = $1 AND u.email = $2`,
        [account.accountId, address],
      );
      expect(count).toBe(1);
    });

    it('an expired or revoked link is not found (404)', async () => {
      const account = await newAccount();
      const expired = await invite(account, email('late'), 'viewer');
      await db.query(`UPDATE invitations SET expires_at = now() - interval '1 second' WHERE account_id = $1`, [account.accountId]);
      expect(await statusOf(invitations.preview(expired))).toBe(404);
      expect(await statusOf(joinedVia(expired, { password: 'a new passphrase here' }))).toBe(404);

      const revokedToken = await invite(account, email('revoked'), 'viewer');
      const [pending] = await invitations.list(account.accountId);
      await invitations.revoke(account.accountId, actorOf(account.owner), pending.id);
      expect(await statusOf(joinedVia(revokedToken, { password: 'a new passphrase here' }))).toBe(404);
      expect(await statusOf(invitations.revoke(account.accountId, actorOf(account.owner), pending.id))).toBe(404);
    });

    it('an invitation whose e-mail cannot be sent does not exist', async () => {
      const account = await newAccount();
      const refused = invitations.create(
        principalOf(account.accountId, account.owner, 'owner'),
        actorOf(account.owner),
        { email: email('unsent'), role: 'viewer' },
        async () => {
          throw new Error('SMTP refused');
        },
      );
      await expect(refused).rejects.toThrow('SMTP refused');
      expect(await invitations.list(account.accountId)).toEqual([]);
    });

    it('only an owner invites an owner (403); a member is not invited again (422)', async () => {
      const account = await newAccount();
      const admin = await newMember(account.accountId, 'admin');
      const asAdmin = principalOf(account.accountId, admin, 'admin');
      const send = async () => undefined;
      expect(await statusOf(invitations.create(asAdmin, actorOf(admin), { email: email('boss'), role: 'owner' }, send))).toBe(403);
      expect(await statusOf(invitations.create(asAdmin, actorOf(admin), { email: ` ${account.owner.email.toUpperCase()} `, role: 'viewer' }, send))).toBe(422);
    });

    it('an existing user accepts signed in as themselves (401 signed out, 403 as someone else), without a password', async () => {
      const account = await newAccount();
      const elsewhere = await newAccount();
      const token = await invite(account, elsewhere.owner.email, 'admin');
      expect(await invitations.preview(token)).toMatchObject({ existingUser: true });
      expect(await statusOf(joinedVia(token, {}))).toBe(401);
      expect(await statusOf(joinedVia(token, {}, account.owner.userId))).toBe(403);
      expect(await joinedVia(token, {}, elsewhere.owner.userId)).toEqual({ accountId: account.accountId, userId: elsewhere.owner.userId, newUser: false });
      expect(await roles(account.accountId)).toMatchObject({ [elsewhere.owner.email]: 'admin' });
    });
  });

  describe('two-factor state', () => {
    const codeAt = (secret: string, offsetSteps = 0) => generate({ secret, epoch: Math.floor(clock.now().getTime() / 1000) + offsetSteps * 30 });

    it('enable and disable round-trip the stored state; a code is used once', async () => {
      const totp = ctx.app.get(TotpService);
      const { owner } = await newAccount();
      const stored = () => db.transaction((manager) => identity.lockTotp(manager, owner.userId));
      clock.freeze();

      const { secret } = await totp.begin(owner.userId, owner.email);
      expect(await totp.isEnabled(owner.userId)).toBe(false);
      expect((await stored()).totp_secret).not.toContain(secret); // sealed, never the secret itself
      await totp.confirm(actorOf(owner), await codeAt(secret));
      expect(await totp.isEnabled(owner.userId)).toBe(true);
      expect(await statusOf(totp.begin(owner.userId, owner.email))).toBe(422);

      expect(await totp.verifyAtSignIn(owner.userId, await codeAt(secret))).toBe(false); // the confirming code's step is spent
      clock.advance(30_000);
      expect(await totp.verifyAtSignIn(owner.userId, await codeAt(secret))).toBe(true);
      expect(await totp.verifyAtSignIn(owner.userId, await codeAt(secret))).toBe(false);

      clock.advance(30_000);
      await totp.disable(actorOf(owner), await codeAt(secret));
      expect(await totp.isEnabled(owner.userId)).toBe(false);
      expect(await stored()).toEqual({ totp_secret: null, totp_enabled_at: null, totp_last_step: null });
      expect(await totp.verifyAtSignIn(owner.userId, await codeAt(secret, 1))).toBe(false);
    });
  });

  describe('password resets (the repository)', () => {
    it('a link is used once, even by two uses at the same moment; using one kills the user’s others', async () => {
      const { owner } = await newAccount();
      const first = randomToken(32);
      const second = randomToken(32);
      await identity.createPasswordReset(owner.userId, first, 1800);
      await identity.createPasswordReset(owner.userId, second, 1800);
      expect(await identity.passwordResetUsable(first)).toBe(true);

      const uses = await Promise.all([
        db.transaction((manager) => identity.usePasswordReset(manager, first)),
        db.transaction((manager) => identity.usePasswordReset(manager, first)),
      ]);
      expect(uses.sort()).toEqual([null, owner.userId].sort());
      expect(await identity.passwordResetUsable(first)).toBe(false);

      expect(await identity.passwordResetUsable(second)).toBe(true);
      await db.transaction((manager) => identity.usePasswordResetsOf(manager, owner.userId));
      expect(await identity.passwordResetUsable(second)).toBe(false);
      expect(await db.transaction((manager) => identity.usePasswordReset(manager, second))).toBeNull();
    });

    it('an expired link does not work', async () => {
      const { owner } = await newAccount();
      const token = randomToken(32);
      await identity.createPasswordReset(owner.userId, token, 1800);
      await db.query(`UPDATE password_resets SET expires_at = now() - interval '1 second' WHERE user_id = $1`, [owner.userId]);
      expect(await identity.passwordResetUsable(token)).toBe(false);
      expect(await db.transaction((manager) => identity.usePasswordReset(manager, token))).toBeNull();
    });
  });

  describe('reads other libs make through the repository', () => {
    it("a user's accounts by name, a member's role and e-mail, and the role held until commit", async () => {
      const zulu = await newAccount('Zulu reads');
      const alpha = await newAccount('Alpha reads');
      const person = await newMember(zulu.accountId, 'viewer');
      await db.transaction((manager) => identity.addMember(manager, alpha.accountId, person.userId, 'admin'));

      expect(await db.transaction((manager) => identity.membershipsOf(manager, person.userId))).toEqual([
        { accountId: alpha.accountId, accountName: 'Alpha reads', role: 'admin' },
        { accountId: zulu.accountId, accountName: 'Zulu reads', role: 'viewer' },
      ]);
      expect(await db.transaction((manager) => identity.accountIdsOf(manager, person.userId))).toEqual([alpha.accountId, zulu.accountId]);
      expect(await identity.member(zulu.accountId, person.userId)).toEqual({ role: 'viewer', email: person.email });
      expect(await identity.member(zulu.accountId, alpha.owner.userId)).toBeNull();

      // Held FOR SHARE: a role change waits until the holder's transaction ends.
      let changed = false;
      await db.transaction(async (manager) => {
        expect(await identity.holdRole(manager, zulu.accountId, person.userId)).toBe('viewer');
        const change = team.changeRole(principalOf(zulu.accountId, zulu.owner, 'owner'), actorOf(zulu.owner), person.userId, 'developer').then(() => {
          changed = true;
        });
        await waitForLockWait(ctx.config.databaseUrl);
        expect(changed).toBe(false);
        void change;
      });
      await expectEventually(() => changed);
      expect(await identity.member(zulu.accountId, person.userId)).toMatchObject({ role: 'developer' });
    });
  });
});

/**
 * Until some statement of this database waits for a lock: a positive signal, not a sleep. As the
 * superuser, who sees every session's wait (the runtime role sees only its own login's).
 */
async function waitForLockWait(databaseUrl: string): Promise<void> {
  const admin = await adminDataSource(databaseUrl, { superuser: true });
  try {
    for (let i = 0; i < 500; i++) {
      const [row] = await admin.query(
        `SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
      );
      if (row.waiting > 0) return;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error('no statement waited for a lock');
  } finally {
    await admin.destroy();
  }
}

async function expectEventually(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(condition()).toBe(true);
}
