import type { Principal } from '@app/auth';
import { RewardLifecycle, RewardsService } from '@app/rewards';
import type { RewardListFilter } from '@app/rewards';
import { IssuanceLease } from '../../libs/rewards/src/lifecycle/issuance-lease';
import { MailJobRepository } from '../../libs/rewards/src/lifecycle/mail-job.repository';
import { MailLease } from '../../libs/rewards/src/lifecycle/mail-lease';
import { MAIL_READ, MailRow } from '../../libs/rewards/src/reward-mail.service';
import { RewardRepository } from '../../libs/rewards/src/lifecycle/reward.repository';
import { fundedAccount, RewardsContext, sendReward, startRewardsContext, usdItems } from '../support/rewards-context';
import { captureStatements, expectGolden } from '../support/sql-golden';
import { clockOverride, TestClock } from '../support/test-clock';

const credentials = { credentials: [{ type: 'text' as const, label: 'Code', value: 'GOLDEN-1234' }], redemptionInstructions: 'Show the code.' };
const origin = { actor: { type: 'api_key' as const, id: 'key_golden', label: null }, ipAddress: '127.0.0.1' };

/**
 * Golden SQL of the lifecycle's hot paths (docs/testing.md, Golden SQL), beside the send's and the
 * pick's (send-sql.e2e-spec.ts): every write statement of a card settle, a cancel, an expiry batch,
 * the card and e-mail leases (with the sweeper's reads of them), and the statements of a GET
 * /v1/rewards page. They are captured as the operations run on the rewards module alone (no HTTP
 * app), on a database of the suite's own.
 */
describe('golden SQL of the lifecycle statements', () => {
  const clock = new TestClock();
  let ctx: RewardsContext;
  let principal: Principal;
  let items: Awaited<ReturnType<typeof usdItems>>;
  let lifecycle: RewardLifecycle;
  let lease: IssuanceLease;

  beforeAll(async () => {
    ctx = await startRewardsContext({ overrides: [clockOverride(clock)] });
    principal = await fundedAccount(ctx, 10_000_000);
    items = await usdItems(ctx);
    lifecycle = ctx.app.get(RewardLifecycle);
    lease = ctx.app.get(IssuanceLease);
  });
  afterAll(() => ctx.close());

  const capture = (work: () => Promise<unknown>, keep?: (sql: string) => boolean) => captureStatements(ctx.dataSource, work, keep);
  const everything = () => true;
  const sendFixed = (utid = items.fixed.utid, valueCents = items.fixed.valueCents) => sendReward(ctx, principal, { type: 'FIXED', utid, valueCents });
  const sendChoice = (valueCents: number, extra: Record<string, unknown> = {}) => sendReward(ctx, principal, { type: 'CHOICE', valueCents, ...extra });
  /** A CHOICE reward with value left after one pending card of it. */
  const pickedChoice = async (utid = items.fixed.utid, face = items.fixed.valueCents) => {
    const sent = await sendChoice(face * 3);
    const picked = await lifecycle.pick(sent.token, { utid, amountCents: face }, null);
    return { ...sent, cardId: picked.body.card.id };
  };

  it('issuance-lease.sql: take (the mark), renew and release of a card, and the sweeper\'s read', async () => {
    const { cardIds } = await sendFixed();
    let card = null as Awaited<ReturnType<IssuanceLease['take']>>;
    const take = await capture(async () => (card = await lease.take(cardIds[0])));
    expect(card).not.toBeNull();
    expectGolden('issuance-lease.sql', [
      ['Take: mark the card, unless it is settled or another run holds a live lease', take],
      ["Renew, while the supplier call lasts (the heartbeat's statement, here for one lease)", await capture(() => lease.renew(card!))],
      ['Release, after a transient supplier error', await capture(() => lease.release(card!))],
      [
        'Sweeper: PENDING cards with no live lease, older than 30 s',
        await capture(() => ctx.app.get(RewardRepository).cardsToSweep('30 seconds', 1000, new Date()), everything),
      ],
    ]);
  });

  it('settle-issued.sql: the settle of an issued card', async () => {
    const fixed = await sendFixed();
    const choice = await pickedChoice();
    const issue = async (cardId: string) => {
      await lease.take(cardId);
      return capture(async () => expect(await lifecycle.issue(cardId, credentials)).toBe(true));
    };
    expectGolden('settle-issued.sql', [
      ["A FIXED reward's card (the reward becomes REDEEMED)", await issue(fixed.cardIds[0])],
      ["A CHOICE reward's card with value left (the status stays PARTIALLY_REDEEMED)", await issue(choice.cardId)],
    ]);
  });

  it('settle-failed.sql: the settle of a card the supplier refused', async () => {
    const fixed = await sendFixed(items.failing.utid, items.failing.valueCents);
    const open = await pickedChoice(items.failing.utid, items.failing.valueCents);
    const closed = await pickedChoice(items.failing.utid, items.failing.valueCents);
    await lifecycle.cancel(principal.accountId, closed.rewardId, origin);
    const fail = (cardId: string) => capture(async () => expect(await lifecycle.fail(cardId, 'refused by the supplier')).toBe(true));
    expectGolden('settle-failed.sql', [
      ["A FIXED reward's card (the reward is CANCELED, the value returns to the wallet)", await fail(fixed.cardIds[0])],
      ["An open CHOICE reward's card (the value returns to the reward)", await fail(open.cardId)],
      ["A cancelled CHOICE reward's card (the value returns to the wallet)", await fail(closed.cardId)],
    ]);
  });

  it('cancel.sql: the writes of POST /v1/rewards/{id}/cancel', async () => {
    const fixed = await sendFixed();
    const choice = await sendChoice(5_000);
    const cancel = (rewardId: string) => capture(() => lifecycle.cancel(principal.accountId, rewardId, origin));
    expectGolden('cancel.sql', [
      ['A FIXED reward whose card the supplier was not asked for yet (the card is CANCELED)', await cancel(fixed.rewardId)],
      ['A CHOICE reward with value left', await cancel(choice.rewardId)],
    ]);
  });

  it('expiry.sql: the write statement of one expiry batch', async () => {
    const expiresAt = new Date(Date.now() + 60 * 60_000).toISOString();
    await sendChoice(1_000, { expiresAt });
    await sendChoice(2_000, { expiresAt });
    clock.advance(2 * 60 * 60_000);
    try {
      let expired = 0;
      const batch = await capture(async () => (expired = await lifecycle.expireDue()));
      expect(expired).toBe(2);
      expectGolden('expiry.sql', [['A batch of due rewards (one statement, whatever the batch size)', batch]]);
    } finally {
      clock.reset();
    }
  });

  it('mail-lease.sql: take, renew and release of an e-mail job, and its outcome', async () => {
    const mailLease = ctx.app.get(MailLease);
    const mailJobs = ctx.app.get(MailJobRepository);
    const first = await sendChoice(1_000);
    const second = await sendChoice(1_000);
    let mail = null as Awaited<ReturnType<MailLease['take']>>;
    const take = await capture(async () => (mail = await mailLease.take(first.mailJobId)));
    const renew = await capture(() => mailLease.renew(mail!));
    const release = await capture(() => mailLease.release(mail!, 'SMTP 451: try again later'));
    mail = await mailLease.take(first.mailJobId);
    const sent = await capture(() => lifecycle.emailDelivered(mail!, new Date()));
    const other = await mailLease.take(second.mailJobId);
    const failed = await capture(() => mailJobs.markFailed(other!, 'SMTP 550: no such mailbox'));
    // The worker's take: the lease and what the message shows, in one statement (RewardMailService).
    const third = await sendChoice(1_000);
    let taken: { row: MailRow } | null = null;
    const takeReading = await capture(async () => (taken = await mailLease.takeReading<MailRow>(third.mailJobId, MAIL_READ)));
    expect(taken!.row).toMatchObject({ job_id: third.mailJobId, id: third.rewardId, kind: 'reward', channel: 'email', attempts: 1 });
    expect(taken!.row.token_sealed).toEqual(expect.any(String));
    expectGolden('mail-lease.sql', [
      ['Take: claim a PENDING job, unless another run holds a live lease', take],
      ["Renew, while the send lasts (the heartbeat's statement, here for one lease)", renew],
      ['Release, after a failed send that is retried', release],
      ["Sent: the job, and the reward's e-mail status (one statement)", sent],
      ['Failed, after the last attempt', failed],
      ["The worker's take: the lease, with what the message shows (one statement)", takeReading],
      ['Sweeper: PENDING jobs whose lease ran out', await capture(() => mailLease.expired(1000), everything)],
    ]);
  });

  it('list-page.sql: the statements of a GET /v1/rewards page', async () => {
    const rewards = ctx.app.get(RewardsService);
    const { rewardId } = await sendChoice(1_000, { externalId: 'order-golden' });
    const everything = () => true;
    const page = (filters: RewardListFilter, window: { startingAfter?: string } = {}) =>
      capture(() => rewards.list(principal.accountId, filters, { page: 1, pageSize: 25, ...window }), everything);
    expectGolden('list-page.sql', [
      ['The first page (the total from the kept counts, in the same statement)', await page({})],
      ['Filtered by status', await page({ status: 'SENT' })],
      ['Filtered by external_id (the total counted)', await page({ externalId: 'order-golden' })],
      [
        'Filtered by a created range, campaign and currency (the total counted over the range index)',
        await page({ campaign: 'spring', currency: 'USD', created: { gte: new Date('2026-11-01T00:00:00Z'), lt: new Date('2026-12-01T00:00:00Z') } }),
      ],
      ['Older than a cursor (starting_after)', await page({}, { startingAfter: rewardId })],
    ]);
  });
});
