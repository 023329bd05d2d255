import type { Principal } from '@app/auth';
import { CatalogRulesService } from '@app/catalog';
import { ValidationError } from '@app/core';
import { RewardLifecycle } from '@app/rewards';
import { IssuanceLease } from '../../libs/rewards/src/lifecycle/issuance-lease';
import { MailLease } from '../../libs/rewards/src/lifecycle/mail-lease';
import { RewardSender } from '../../libs/rewards/src/reward-sender.service';
import { expectLedgerInvariants } from '../support/ledger-invariants';
import { eventually } from '../support/processes';
import { fundedAccount, RewardsContext, sendReward, startRewardsContext, usdItems } from '../support/rewards-context';

const credentials = (code: string) => ({ credentials: [{ type: 'text' as const, label: 'Code', value: code }], redemptionInstructions: 'Show the code.' });
const origin = { actor: { type: 'api_key' as const, id: 'key_service', label: null }, ipAddress: null };

/**
 * Service tests of the reward lifecycle's rules (docs/testing.md, Service tests): the settle, the
 * card and e-mail leases and the pick's catalog checks, on the rewards module alone (real
 * PostgreSQL, no HTTP, no worker). The leases run on the database's clock: a test moves a lease
 * into the past with an UPDATE instead of waiting for it to run out.
 */
describe('reward lifecycle (service)', () => {
  let ctx: RewardsContext;
  let principal: Principal;
  let items: Awaited<ReturnType<typeof usdItems>>;
  let lifecycle: RewardLifecycle;
  let lease: IssuanceLease;

  beforeAll(async () => {
    ctx = await startRewardsContext();
    principal = await fundedAccount(ctx, 10_000_000);
    items = await usdItems(ctx);
    lifecycle = ctx.app.get(RewardLifecycle);
    lease = ctx.app.get(IssuanceLease);
  });
  afterAll(() => ctx.close());

  const sendFixed = () => sendReward(ctx, principal, { type: 'FIXED', utid: items.fixed.utid, valueCents: items.fixed.valueCents });
  const row = async (sql: string, params: unknown[]) => ((await ctx.dataSource.query(sql, params)) as Record<string, unknown>[])[0];
  const ledgerRows = (relatedId: string) =>
    ctx.dataSource.query(`SELECT kind FROM wallet_transactions WHERE related_id = $1 ORDER BY kind`, [relatedId]) as Promise<{ kind: string }[]>;
  /** Moves the card's lease into the past, as if its holder had died that long ago. */
  const runOutCardLease = (cardId: string) =>
    ctx.dataSource.query(`UPDATE reward_cards SET issuing_since = clock_timestamp() - interval '1 minute' WHERE id = $1`, [cardId]);

  describe('settle', () => {
    it('settles a card once: a second issue or a fail after it changes nothing', async () => {
      const { rewardId, cardIds } = await sendFixed();
      const [cardId] = cardIds;
      await lease.take(cardId);
      expect(await lifecycle.issue(cardId, credentials('FIRST'))).toBe(true);
      expect(await lifecycle.issue(cardId, credentials('SECOND'))).toBe(false);
      expect(await lifecycle.fail(cardId, 'refused')).toBe(false);

      const view = await lifecycle.recipientView(rewardId);
      expect(view.reward.status).toBe('REDEEMED');
      expect(view.cards.map((card) => [card.status, card.credentials?.[0].value])).toEqual([['ISSUED', 'FIRST']]);
      expect(await ledgerRows(cardId)).toEqual([{ kind: 'CAPTURE' }]);
      await expectLedgerInvariants(ctx.dataSource, principal.accountId);
    });

    it('an issue and a fail of the same card at once: exactly one settles it', async () => {
      const { rewardId, cardIds } = await sendFixed();
      const [cardId] = cardIds;
      await lease.take(cardId);
      const [issued, failed] = await Promise.all([lifecycle.issue(cardId, credentials('RACE')), lifecycle.fail(cardId, 'refused')]);
      expect([issued, failed].filter(Boolean)).toHaveLength(1);

      const { reward, cards } = await lifecycle.recipientView(rewardId);
      if (issued) {
        expect([reward.status, cards[0].status]).toEqual(['REDEEMED', 'ISSUED']);
        expect(await ledgerRows(cardId)).toEqual([{ kind: 'CAPTURE' }]);
      } else {
        expect([reward.status, cards[0].status]).toEqual(['CANCELED', 'FAILED']);
        expect(await ledgerRows(cardId)).toEqual([{ kind: 'RELEASE' }]);
      }
      await expectLedgerInvariants(ctx.dataSource, principal.accountId);
    });

    it('a card cancelled with its reward before the supplier was asked is not settled', async () => {
      const { rewardId, cardIds } = await sendFixed();
      await lifecycle.cancel(principal.accountId, rewardId, origin);
      expect(await lease.take(cardIds[0])).toBeNull();
      expect(await lifecycle.issue(cardIds[0], credentials('LATE'))).toBe(false);
      expect((await lifecycle.recipientView(rewardId)).reward.status).toBe('CANCELED');
      expect(await ledgerRows(cardIds[0])).toEqual([{ kind: 'RELEASE' }]);
    });
  });

  describe('card lease', () => {
    it('is held by one run until it runs out; then another takes it over and the first can neither renew nor release it', async () => {
      const { rewardId, cardIds } = await sendFixed();
      const [cardId] = cardIds;
      const first = await lease.take(cardId);
      expect(first).toMatchObject({ id: cardId, rewardId, issueAttempts: 1, amountCents: items.fixed.valueCents });
      expect(await lease.take(cardId)).toBeNull();
      // Marked: the supplier may be issuing the card, so a cancel no longer refunds it.
      await expect(lifecycle.cancel(principal.accountId, rewardId, origin)).rejects.toThrow(/being issued/);

      await runOutCardLease(cardId);
      const second = await lease.take(cardId);
      expect(second).toMatchObject({ id: cardId, issueAttempts: 2 });
      const held = await row(`SELECT issuing_since FROM reward_cards WHERE id = $1`, [cardId]);
      await lease.renew(first!);
      await lease.release(first!);
      expect(await row(`SELECT issuing_since FROM reward_cards WHERE id = $1`, [cardId])).toEqual(held);
      expect(await lease.take(cardId)).toBeNull();

      await lease.release(second!);
      expect(await lease.take(cardId)).toMatchObject({ issueAttempts: 3 });
    });

    it('while a run holds it (the supplier call), the heartbeat renews it', async () => {
      const { cardIds } = await sendFixed();
      const [cardId] = cardIds;
      const card = await lease.take(cardId);
      await runOutCardLease(cardId);
      const renewed = () => row(`SELECT issuing_since > clock_timestamp() - interval '5 seconds' AS live FROM reward_cards WHERE id = $1`, [cardId]);
      // A copy: a lease this object did not take is renewed at the heartbeat's next beat (it looks every second).
      await lease.hold({ ...card! }, () => eventually(async () => (await renewed()).live === true, 2_500, 50));
      expect(await lease.take(cardId)).toBeNull();
    });

    it('a renewal keeps a live lease from being taken over', async () => {
      const { cardIds } = await sendFixed();
      const [cardId] = cardIds;
      const held = await lease.take(cardId);
      await runOutCardLease(cardId);
      await lease.renew(held!);
      expect(await lease.take(cardId)).toBeNull();
    });
  });

  describe('e-mail lease', () => {
    it('is held by one run until it runs out; a run that was taken over can neither renew nor release it', async () => {
      const mailLease = ctx.app.get(MailLease);
      const { rewardId, mailJobId } = await sendReward(ctx, principal, { type: 'CHOICE', valueCents: 1_000 });
      const first = await mailLease.take(mailJobId);
      expect(first).toEqual({ id: mailJobId, rewardId, attempt: 1 });
      expect(await mailLease.take(mailJobId)).toBeNull();

      await ctx.dataSource.query(`UPDATE mail_jobs SET leased_until = clock_timestamp() - interval '1 second' WHERE id = $1`, [mailJobId]);
      const second = await mailLease.take(mailJobId);
      expect(second).toEqual({ id: mailJobId, rewardId, attempt: 2 });
      const held = await row(`SELECT leased_until, last_error FROM mail_jobs WHERE id = $1`, [mailJobId]);
      await mailLease.renew(first!);
      await mailLease.release(first!, 'SMTP 451 seen by the run that was taken over');
      expect(await row(`SELECT leased_until, last_error FROM mail_jobs WHERE id = $1`, [mailJobId])).toEqual(held);
      expect(await mailLease.take(mailJobId)).toBeNull();

      await mailLease.release(second!, 'SMTP 451');
      expect(await row(`SELECT status, leased_until, last_error FROM mail_jobs WHERE id = $1`, [mailJobId])).toEqual({
        status: 'PENDING',
        leased_until: null,
        last_error: 'SMTP 451',
      });
      const third = await mailLease.take(mailJobId);
      expect(third).toMatchObject({ attempt: 3 });
      await lifecycle.emailDelivered(third!, new Date());
      expect(await mailLease.take(mailJobId)).toBeNull();
    });

    it('while a send holds it, the heartbeat renews it', async () => {
      const mailLease = ctx.app.get(MailLease);
      const { mailJobId } = await sendReward(ctx, principal, { type: 'CHOICE', valueCents: 1_000 });
      const mail = await mailLease.take(mailJobId);
      await ctx.dataSource.query(`UPDATE mail_jobs SET leased_until = clock_timestamp() - interval '1 second' WHERE id = $1`, [mailJobId]);
      const live = async () => (await row(`SELECT leased_until > clock_timestamp() AS live FROM mail_jobs WHERE id = $1`, [mailJobId])).live === true;
      await mailLease.hold({ ...mail! }, () => eventually(live, 2_500, 50));
      expect(await mailLease.take(mailJobId)).toBeNull();
    });
  });

  describe('pick checks (RewardCatalog, beside the send)', () => {
    const refusal = async (work: Promise<unknown>) => {
      const error = await work.then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(ValidationError);
      return (error as ValidationError).message;
    };

    it('words one value rule for who reads it: the sender in API terms, the recipient as money', async () => {
      const wrong = items.fixed.valueCents + 1;
      const send = ctx.app
        .get(RewardSender)
        .send(principal, { type: 'FIXED', utid: items.fixed.utid, valueCents: wrong, recipient: { email: 'a@example.test', firstName: 'A' } } as never, {
          idempotencyKey: null,
          dryRun: false,
        });
      expect(await refusal(send)).toMatch(new RegExp(`valueCents must be ${items.fixed.valueCents}\\.$`));

      const { token, rewardId } = await sendReward(ctx, principal, { type: 'CHOICE', valueCents: 50_000 });
      expect(await refusal(lifecycle.pick(token, { utid: items.fixed.utid, amountCents: wrong }, null))).toMatch(/ has a face value of \$[\d.,]+\.$/);
      expect(await refusal(lifecycle.pick(token, { utid: 'no-such-item', amountCents: 100 }, null))).toBe('Item no-such-item is not available in USD.');
      expect((await lifecycle.recipientView(rewardId)).reward.remainingValueCents).toBe(50_000);
    });

    it("refuses a brand the account's rules no longer allow, read in the pick's transaction", async () => {
      const other = await fundedAccount(ctx, 100_000);
      const { token } = await sendReward(ctx, other, { type: 'CHOICE', valueCents: 50_000 });
      const catalogItem = (await usdItems(ctx)).fixed;
      const picked = await lifecycle.pick(token, { utid: catalogItem.utid, amountCents: catalogItem.valueCents }, null);
      expect(picked.status).toBe(201);
      const brandKey = (await row(`SELECT brand_key FROM reward_cards WHERE id = $1`, [picked.body.card.id])).brand_key as string;
      await ctx.app.get(CatalogRulesService).replace(other.accountId, { allowedBrandKeys: null, blockedBrandKeys: [brandKey] }, origin);
      expect(await refusal(lifecycle.pick(token, { utid: catalogItem.utid, amountCents: catalogItem.valueCents }, null))).toMatch(
        / is no longer offered by the sender\.$/,
      );
    });
  });
});
