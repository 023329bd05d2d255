import { Inject, Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import {
  Clock,
  ForbiddenError,
  formatMoney,
  fingerprint,
  IdempotencyStore,
  newId,
  NotFoundError,
  readSnapshot,
  Statement,
  UnavailableError,
  ValidationError,
} from '@app/core';
import { AuditLog, AuditOrigin } from '@app/audit';
import { LedgerEntry, WalletLedger } from '@app/wallet';
import { IssuedCardDto, toIssuedCardDto } from '../dto/reward.dto';
import type { RewardCardEntity, StoredCredential } from '../entities/reward-card.entity';
import { OPEN_REWARD_STATUSES, RewardEntity, RewardStatus } from '../entities/reward.entity';
import { RewardCatalog } from '../reward-catalog';
import { pendingCard } from '../reward-drafts';
import { RewardJobs } from '../reward-jobs';
import { cardEventData, rewardEventData, rewardEventDataOfRow } from './reward-webhook-data';
import { MailJobRepository } from './mail-job.repository';
import { timelineEvent, TimelineEntry, RewardTimeline } from './reward-timeline';
import { RewardRepository } from './reward.repository';

/** Rewards expired per transaction: short enough that a send to the same wallet barely waits (docs/rewards.md, Expiry). */
export const EXPIRY_BATCH_SIZE = 200;

/**
 * Scheduled sends delivered per transaction (docs/delivery.md, Exactly once, in batches). Larger than an
 * expiry batch: a delivery locks no wallet, so sends to the same merchant never wait for it.
 */
export const DELIVERY_BATCH_SIZE = 500;

/** A scheduled send not yet delivered: CREATED with a delivery time (which may have come and not been swept yet). */
export function awaitingDelivery(reward: Pick<RewardEntity, 'status' | 'deliverAt'>): boolean {
  return reward.status === 'CREATED' && reward.deliverAt !== null;
}

/** What the recipient's side may read of a reward (no e-mail address, no merchant references). */
export type RedeemableReward = Readonly<
  Pick<
    RewardEntity,
    | 'id'
    | 'accountId'
    | 'type'
    | 'status'
    | 'faceValueCents'
    | 'remainingValueCents'
    | 'currency'
    | 'recipientFirstName'
    | 'recipientLanguage'
    | 'message'
    | 'allowedBrandKeys'
    | 'brandName'
    | 'brandImageUrl'
    | 'expiresAt'
    | 'openedAt'
    | 'approvalStatus'
    | 'deliverAt'
  >
>;

/** A dashboard user deciding an approval (docs/controls.md, Approvals). */
export interface ApprovalDecider {
  userId: string;
  email: string;
  origin: AuditOrigin;
}

/** The 30-day rejection's entry in the audit log: no person decided it. */
const SCHEDULER_ORIGIN: AuditOrigin = { actor: { type: 'operator', id: null, label: 'scheduler (undecided for 30 days)' }, ipAddress: null };

/** Undecided approvals are rejected after this long. */
export const APPROVAL_TTL_DAYS = 30;

export interface PickOutcome {
  status: 200 | 201;
  replayed: boolean;
  body: { card: IssuedCardDto };
}

/** A card waiting for the supplier, locked with its reward (see `settle`). */
interface LockedCard {
  reward: RewardEntity;
  card: RewardCardEntity;
}

/** The reward's row stayed locked by another transaction for longer than a cancel waits. */
export class RewardBusyError extends UnavailableError {
  constructor() {
    super('The reward is busy (another change to it is in progress); retry shortly.');
  }
}

/**
 * How long a cancel waits for the reward's row lock before answering 503 (docs/rewards.md, Cancel):
 * 10 s. A provider, so a test can shorten the wait instead of sitting through it (docs/testing.md).
 */
export const REWARD_LOCK_TIMEOUT_MS = Symbol('REWARD_LOCK_TIMEOUT_MS');
export const rewardLockTimeoutProvider = { provide: REWARD_LOCK_TIMEOUT_MS, useValue: 10_000 };

/**
 * The one owner of a reward's state: every transition after the send (open, pick, issue, fail,
 * cancel, expire, resend) is made here, with its timeline entry, its webhook and its wallet
 * movement in the same transaction. The states and their rules are described in docs/rewards.md.
 */
@Injectable()
export class RewardLifecycle {
  constructor(
    private readonly dataSource: DataSource,
    private readonly rewards: RewardRepository,
    private readonly mailJobs: MailJobRepository,
    private readonly timeline: RewardTimeline,
    private readonly ledger: WalletLedger,
    private readonly catalog: RewardCatalog,
    private readonly jobs: RewardJobs,
    private readonly audit: AuditLog,
    private readonly idempotencyKeys: IdempotencyStore,
    private readonly clock: Clock,
    @Inject(REWARD_LOCK_TIMEOUT_MS) private readonly lockTimeoutMs: number,
  ) {}

  /** The reward a link token opens, or null for an unknown token. */
  async findByToken(token: string): Promise<RedeemableReward | null> {
    const manager = this.dataSource.manager;
    const rewardId = await this.rewards.rewardIdOfToken(manager, token);
    return rewardId ? this.rewards.find(manager, rewardId) : null;
  }

  /** One of the account's rewards, for the sender's preview of its page (docs/redemption.md, Preview); null if not theirs. */
  findOfAccount(accountId: string, id: string): Promise<RedeemableReward | null> {
    return this.rewards.find(this.dataSource.manager, id, accountId);
  }

  /** The reward's one redemption link token, the create response's (docs/redemption.md, One link). */
  redemptionToken(reward: Pick<RewardEntity, 'id' | 'accountId'>, sealed?: string | null): Promise<string> {
    return this.rewards.redemptionToken(this.dataSource.manager, reward, sealed);
  }

  /**
   * The reward and the cards its recipient sees (all but cancelled ones, credentials in full: they
   * hold the link), read in one snapshot. An issuance commits a card and the reward's new status
   * together, so the page never shows an issued card beside a status from before it.
   */
  recipientView(rewardId: string): Promise<{ reward: RedeemableReward; cards: IssuedCardDto[] }> {
    return readSnapshot(this.dataSource, async (manager) => {
      const reward = await this.rewards.find(manager, rewardId);
      if (!reward) throw new Error(`reward ${rewardId} of a redemption link does not exist`);
      const cards = await this.rewards.cardsOf(manager, [rewardId]);
      return { reward, cards: cards.filter((card) => card.status !== 'CANCELED').map((card) => toIssuedCardDto(card, true)) };
    });
  }

  /**
   * Open: the first view sets openedAt and records `reward.opened` once, whatever the status; SENT
   * becomes OPENED. The conditional update lets exactly one of several concurrent opens win.
   */
  async open(reward: RedeemableReward): Promise<void> {
    if (reward.openedAt) return;
    // openedAt and the `reward.opened` entry carry the one instant of the service's clock (docs/testing.md, Time).
    const now = this.clock.now();
    await this.dataSource.transaction(async (manager) => {
      const won = await this.rewards.markOpened(manager, reward.id, now);
      const current = await this.rewards.find(manager, reward.id);
      if (!current) throw new NotFoundError('Reward');
      if (won) {
        await this.timeline.record(manager, [
          {
            event: timelineEvent(reward.id, 'reward.opened', now),
            webhook: { accountId: current.accountId, type: 'reward.opened', data: rewardEventData(current) },
          },
        ]);
      }
    });
  }

  /** Whether a CHOICE reward still takes picks: open, value left and not past its expiry. */
  takesPicks(reward: RedeemableReward, now = this.clock.now()): boolean {
    return (
      reward.type === 'CHOICE' &&
      reward.approvalStatus !== 'PENDING' &&
      !awaitingDelivery(reward) &&
      OPEN_REWARD_STATUSES.includes(reward.status) &&
      reward.remainingValueCents > 0 &&
      !(reward.expiresAt && reward.expiresAt <= now)
    );
  }

  /**
   * Pick: moves `amountCents` from the reward's remaining value into a new PENDING card and queues
   * its issuance after commit. The reward row is locked first, as issuance and cancel lock it, so
   * concurrent picks queue up on it and can never spend the same value twice. The card, the value
   * and the timeline are written by one statement.
   */
  async pick(token: string, input: { utid: string; amountCents: number }, idempotencyKey: string | null): Promise<PickOutcome> {
    const outcome = await this.dataSource.transaction(async (manager): Promise<PickOutcome> => {
      const rewardId = await this.rewards.rewardIdOfToken(manager, token);
      if (!rewardId) throw new NotFoundError('Redemption link');
      const reward = await this.rewards.lock(manager, rewardId);
      if (!reward) throw new Error(`reward ${rewardId} of a redemption link does not exist`);
      const claim = idempotencyKey
        ? await this.idempotencyKeys.claim(manager, {
            scope: reward.id,
            key: idempotencyKey,
            operation: 'redemption.pick',
            requestHash: fingerprint(input),
          })
        : null;
      if (claim?.kind === 'replay') {
        return { status: 200, replayed: true, body: claim.response.body as { card: IssuedCardDto } };
      }

      const card = await this.checkedPick(reward, input, manager);
      const statement = this.pickStatement(reward, card);
      await manager.query(statement.text('SELECT 1'), statement.params);
      const body = { card: toIssuedCardDto(card, true) };
      await claim?.complete(201, body);
      return { status: 201, replayed: false, body };
    });
    if (!outcome.replayed) await this.jobs.enqueue({ cardIds: [outcome.body.card.id] });
    return outcome;
  }

  /**
   * The writes of a pick of `card` from the locked `reward`, which it updates in memory. The
   * issuance makes the reward REDEEMED once nothing is left or pending.
   */
  pickStatement(reward: RewardEntity, card: RewardCardEntity): Statement {
    const statement = new Statement();
    const next: RewardStatus = 'PARTIALLY_REDEEMED';
    const changed = reward.status !== next;
    reward.remainingValueCents -= card.amountCents;
    reward.status = next;
    this.rewards.insertCardsIn(statement, [card]);
    this.rewards.updateValueIn(statement, reward);
    if (changed) {
      this.timeline.recordIn(statement, [
        {
          // At the pick's time: the card's, which `checkedPick` took from the clock.
          event: timelineEvent(reward.id, 'reward.partially_redeemed', card.createdAt, { cardId: card.id }),
          webhook: { accountId: reward.accountId, type: 'reward.partially_redeemed', data: rewardEventData(reward) },
        },
      ]);
    }
    return statement;
  }

  /** The pick rules, checked against the synced catalog in the reward's currency (docs/rewards.md). */
  private async checkedPick(
    reward: RewardEntity,
    input: { utid: string; amountCents: number },
    manager: EntityManager,
  ): Promise<RewardCardEntity> {
    if (reward.approvalStatus === 'PENDING') throw new ValidationError('This reward is not available yet.');
    if (awaitingDelivery(reward)) throw new ValidationError(`This reward is not available yet: it can be used from ${reward.deliverAt!.toISOString()}.`);
    if (reward.type !== 'CHOICE') throw new ValidationError('This reward is a specific gift card; there is nothing to pick.');
    if (!OPEN_REWARD_STATUSES.includes(reward.status)) {
      throw new ValidationError(`This reward is ${reward.status.toLowerCase().replace('_', ' ')} and takes no more picks.`);
    }
    if (reward.expiresAt && reward.expiresAt <= this.clock.now()) throw new ValidationError('This reward has expired and takes no more picks.');

    // The item, its brand (the reward's list, the account's rules as they are now) and its value rule.
    const item = await this.catalog.checkPick(reward, input, manager);
    if (input.amountCents > reward.remainingValueCents) {
      const money = (amount: number) => formatMoney(amount, reward.currency);
      throw new ValidationError(`${money(input.amountCents)} is more than the ${money(reward.remainingValueCents)} left.`);
    }
    return pendingCard(reward, item, input.amountCents, this.clock.now());
  }

  /**
   * Issue: the card is ISSUED with its credentials and its value captured from the reserved funds
   * (once per card, whatever happens). FIXED: the reward is REDEEMED with its card. CHOICE: REDEEMED
   * once nothing is left or pending, else PARTIALLY_REDEEMED. False when the card was no longer
   * PENDING (see `settle`).
   */
  issue(cardId: string, issued: { credentials: StoredCredential[]; redemptionInstructions: string }): Promise<boolean> {
    return this.settle(cardId, async (manager, { reward, card }) => {
      const now = this.clock.now();
      // One statement for every write, so the settle's transaction waits on the application for no
      // round trip while it holds the reward, the card and (from the capture on) the wallet row.
      const statement = new Statement();
      const issuedCard = this.rewards.issueCardIn(statement, card, issued, now);
      const timeline: TimelineEntry[] = [this.cardEntry(reward, card, 'card.issued', 'ISSUED', now)];
      const next = await this.statusAfterCard(manager, reward, card.id);
      if (next && next !== reward.status) {
        Object.assign(reward, next === 'REDEEMED' ? { status: next, redeemedAt: now } : { status: next });
        this.rewards.updateStatusIn(statement, reward);
        const type = next === 'REDEEMED' ? 'reward.redeemed' : 'reward.partially_redeemed';
        timeline.push({
          event: timelineEvent(reward.id, type, now),
          webhook: { accountId: reward.accountId, type, data: rewardEventData(reward) },
        });
      }
      this.timeline.recordIn(statement, timeline);
      const captured = this.ledger.captureIn(statement, {
        accountId: reward.accountId,
        currency: reward.currency,
        amountCents: card.amountCents,
        relatedType: 'card',
        relatedId: card.id,
        description: `${card.brandName} card for reward ${reward.id}`,
      });
      const [written]: { cards: number; captures: number }[] = await manager.query(
        statement.text(`SELECT (SELECT count(*) FROM ${issuedCard})::int AS cards, (SELECT count(*) FROM ${captured})::int AS captures`),
        statement.params,
      );
      if (written.cards !== 1) throw new Error(`card ${card.id} was not PENDING when its settle wrote it`);
      if (written.captures !== 1) throw new Error(`card ${card.id} was already captured while PENDING`);
    });
  }

  /**
   * Fail: a FIXED reward whose card fails returns the value to the wallet and is CANCELED (with no
   * reward.canceled event). A CHOICE card's value returns to the reward, whose status goes back to
   * what is left; if the reward has closed meanwhile, the value goes to the wallet. False when the
   * card was no longer PENDING (see `settle`).
   */
  fail(cardId: string, reason: string): Promise<boolean> {
    return this.settle(cardId, async (manager, { reward, card }) => {
      await this.rewards.updateCard(manager, card.id, { status: 'FAILED', issuingSince: null, failureReason: reason.slice(0, 500) });
      const closed = reward.status === 'CANCELED' || reward.status === 'EXPIRED';
      if (reward.type === 'FIXED') {
        await this.rewards.update(manager, reward.id, { status: 'CANCELED' });
      } else if (!closed) {
        const issued = await this.rewards.countCards(manager, reward.id, 'ISSUED');
        await this.rewards.addValue(manager, reward.id, card.amountCents, issued > 0 ? 'PARTIALLY_REDEEMED' : 'OPENED');
      }
      await this.timeline.record(manager, [this.cardEntry(reward, card, 'card.failed', 'FAILED', this.clock.now(), { reason })]);
      // Last, as in `issue`: the wallet row stays locked only until commit.
      if (reward.type === 'FIXED' || closed) {
        await this.release(manager, {
          accountId: reward.accountId,
          currency: reward.currency,
          amountCents: card.amountCents,
          relatedType: 'card',
          relatedId: card.id,
          description: `Card ${card.id} failed; value returned`,
        });
      }
    });
  }

  /**
   * A settle's transaction: locks the card's reward, then the card (the order cancel and picks use
   * too, so they cannot deadlock), and writes the outcome if the card is still PENDING. False when
   * it is not: another run settled it first (it took the card over after this run's lease ran out,
   * and had the same answer for the same reference), so there is nothing left to do.
   */
  private settle(cardId: string, write: (manager: EntityManager, locked: LockedCard) => Promise<void>): Promise<boolean> {
    return this.dataSource.transaction(async (manager) => {
      const reward = await this.rewards.lockOfCard(manager, cardId);
      if (!reward) return false;
      const card = await this.rewards.lockCard(manager, { id: cardId });
      if (!card) throw new Error(`card ${cardId} vanished while its reward was locked`);
      if (card.status !== 'PENDING') return false;
      await write(manager, { reward, card });
      return true;
    });
  }

  /**
   * Cancel: value not yet in a card returns to the wallet; a FIXED reward's PENDING card is
   * cancelled and its value returned, unless the supplier has been asked for it: then 422 at once,
   * and the issuance settles it (REDEEMED, or FAILED with the value back). Issuance marks the card
   * under the card's row lock, which cancel takes too, so exactly one of them wins: never both a
   * card and a refund.
   */
  async cancel(accountId: string, id: string, origin: AuditOrigin): Promise<void> {
    // Answered without waiting on any lock: nothing a cancel could do changes a card at the supplier.
    if (await this.rewards.fixedCardAtSupplier(this.dataSource.manager, id, accountId)) throw this.beingIssued(id);
    await this.dataSource.transaction(async (manager) => {
      // Row locks are only ever held for short transactions (no supplier call runs inside one);
      // still, never wait forever.
      await manager.query(`SET LOCAL lock_timeout = ${Math.trunc(this.lockTimeoutMs)}`); // milliseconds
      const reward = await this.rewards.lock(manager, id, accountId).catch((error: { driverError?: { code?: string } }) => {
        if (error.driverError?.code === '55P03') throw new RewardBusyError();
        throw error;
      });
      if (!reward) throw new NotFoundError('Reward');
      if (!OPEN_REWARD_STATUSES.includes(reward.status)) {
        throw new ValidationError(`Reward ${id} is ${reward.status} and cannot be cancelled.`);
      }
      // A CHOICE reward whose whole value is already in cards (pending or issued) has nothing left to
      // return: cancelling it would announce a cancel that changes nothing (docs/rewards.md, Cancel).
      if (reward.type === 'CHOICE' && reward.remainingValueCents === 0) {
        throw new ValidationError(`Reward ${id} has no value left to cancel: all of it is in the recipient's cards.`);
      }
      await this.releaseHeld(manager, reward, `Cancelled reward ${id}`);
      reward.status = 'CANCELED';
      reward.remainingValueCents = 0;
      await this.rewards.update(manager, id, { status: 'CANCELED', remainingValueCents: 0 });
      await this.timeline.record(manager, [
        { event: timelineEvent(id, 'reward.canceled', this.clock.now()), webhook: { accountId, type: 'reward.canceled', data: rewardEventData(reward) } },
      ]);
      await this.audit.record(manager, {
        accountId,
        origin,
        action: 'reward.canceled',
        targetType: 'reward',
        targetId: id,
        metadata: { type: reward.type, faceValueCents: reward.faceValueCents, currency: reward.currency, recipientEmail: reward.recipientEmail },
      });
    });
  }

  /**
   * Approve (docs/controls.md, Approvals): the reward, locked, must be CREATED and waiting; it is sent
   * as any other send is (SENT, its e-mail queued, its card released for ordering) and the decision
   * recorded in the audit log, all in one transaction. The sending user never decides their own (403).
   */
  async approve(accountId: string, id: string, decider: ApprovalDecider): Promise<void> {
    const mailJobId = newId('mail');
    const smsJobId = newId('mail');
    let texted = false;
    const cardIds = await this.dataSource.transaction(async (manager) => {
      const reward = await this.lockForDecision(manager, accountId, id, decider);
      // The service's clock: sentAt is where reminders count from (docs/delivery.md, Reminders).
      const now = this.clock.now();
      if (reward.deliverAt && reward.deliverAt > now) {
        // Approved before its delivery time: it stays CREATED, its value held, and the due-sender
        // sends it then (docs/delivery.md, Scheduled sends: the later of approval and deliverAt).
        const decision = { approvalStatus: 'APPROVED' as const, approvalDecidedById: decider.userId, approvalDecidedByLabel: decider.email, approvalDecidedAt: now };
        Object.assign(reward, decision);
        await this.rewards.update(manager, id, decision);
        await this.recordDecision(manager, reward, 'APPROVED', decider);
        return null;
      }
      Object.assign(reward, {
        status: 'SENT',
        sentAt: now,
        approvalStatus: 'APPROVED',
        approvalDecidedById: decider.userId,
        approvalDecidedByLabel: decider.email,
        approvalDecidedAt: now,
      } satisfies Partial<RewardEntity>);
      await this.rewards.update(manager, id, {
        status: 'SENT',
        sentAt: now,
        emailStatus: 'QUEUED',
        approvalStatus: 'APPROVED',
        approvalDecidedById: decider.userId,
        approvalDecidedByLabel: decider.email,
        approvalDecidedAt: now,
      });
      const released: { id: string }[] = await manager.query(
        `UPDATE reward_cards SET held_for_approval = false WHERE reward_id = $1 AND held_for_approval RETURNING id`,
        [id],
      );
      await this.mailJobs.insert(manager, { id: mailJobId, rewardId: id, kind: 'reward' });
      texted = reward.recipientPhone !== null;
      if (texted) await this.mailJobs.insert(manager, { id: smsJobId, rewardId: id, kind: 'reward', channel: 'sms' });
      await this.timeline.record(manager, [
        {
          event: timelineEvent(id, 'reward.sent', now, { channel: 'email' }),
          webhook: { accountId, type: 'reward.sent', data: rewardEventData(reward) },
        },
      ]);
      await this.recordDecision(manager, reward, 'APPROVED', decider);
      return released.map((card) => card.id);
    });
    if (cardIds === null) return;
    await this.jobs.enqueue({ cardIds, mailJobIds: texted ? [mailJobId, smsJobId] : [mailJobId] });
  }

  /**
   * Reject: the reward, locked, must be CREATED and waiting; it is cancelled with its whole value
   * returned (`reward.canceled`), as a cancel would, and the decision recorded. `decider` null: the
   * scheduler's rejection after 30 days undecided.
   */
  async reject(accountId: string, id: string, decider: ApprovalDecider | null): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const reward = await this.lockForDecision(manager, accountId, id, decider);
      await this.rejectLocked(manager, reward, decider);
    });
  }

  /** Rejects sends undecided for 30 days (by the injected Clock), a batch per transaction; returns how many. */
  async rejectStaleApprovals(batchSize = EXPIRY_BATCH_SIZE): Promise<number> {
    let rejected = 0;
    for (;;) {
      const cutoff = new Date(this.clock.now().getTime() - APPROVAL_TTL_DAYS * 24 * 3600 * 1000);
      const count = await this.dataSource.transaction(async (manager) => {
        const due = await manager
          .getRepository(RewardEntity)
          .createQueryBuilder('r')
          .setLock('pessimistic_write')
          .setOnLocked('skip_locked')
          .where(`r.approval_status = 'PENDING' AND r.status = 'CREATED' AND r.created_at <= :cutoff`, { cutoff })
          .orderBy('r.created_at')
          .limit(batchSize)
          .getMany();
        for (const reward of due) await this.rejectLocked(manager, reward, null);
        return due.length;
      });
      rejected += count;
      if (count < batchSize) return rejected;
    }
  }

  /** The reward locked for a decision: 404 unknown, 403 for its own sender, 422 when not waiting. */
  private async lockForDecision(manager: EntityManager, accountId: string, id: string, decider: ApprovalDecider | null): Promise<RewardEntity> {
    await manager.query(`SET LOCAL lock_timeout = ${Math.trunc(this.lockTimeoutMs)}`); // milliseconds
    const reward = await this.rewards.lock(manager, id, accountId).catch((error: { driverError?: { code?: string } }) => {
      if (error.driverError?.code === '55P03') throw new RewardBusyError();
      throw error;
    });
    if (!reward) throw new NotFoundError('Reward');
    if (decider && reward.createdByType === 'user' && reward.createdById === decider.userId) {
      throw new ForbiddenError('You sent this reward: another admin or owner must decide on it.');
    }
    if (reward.approvalStatus === null) throw new ValidationError(`Reward ${id} needs no approval.`);
    if (reward.approvalStatus !== 'PENDING' || reward.status !== 'CREATED') {
      const state = reward.approvalStatus !== 'PENDING' ? reward.approvalStatus.toLowerCase() : reward.status;
      throw new ValidationError(`Reward ${id} was already decided or is no longer waiting (${state}).`);
    }
    return reward;
  }

  private async rejectLocked(manager: EntityManager, reward: RewardEntity, decider: ApprovalDecider | null): Promise<void> {
    const now = this.clock.now();
    const { id, accountId } = reward;
    // The whole value is still held: in the reward (CHOICE) or its unordered card (FIXED).
    await this.releaseHeld(manager, reward, `Rejected reward ${id}`);
    const decision = {
      status: 'CANCELED' as const,
      remainingValueCents: 0,
      approvalStatus: 'REJECTED' as const,
      approvalDecidedById: decider?.userId ?? null,
      approvalDecidedByLabel: decider?.email ?? null,
      approvalDecidedAt: now,
    };
    Object.assign(reward, decision);
    await this.rewards.update(manager, id, decision);
    await this.timeline.record(manager, [
      { event: timelineEvent(id, 'reward.canceled', now, { reason: 'approval_rejected' }), webhook: { accountId, type: 'reward.canceled', data: rewardEventData(reward) } },
    ]);
    await this.recordDecision(manager, reward, 'REJECTED', decider);
  }

  /**
   * Returns to the wallet what a locked, open reward still holds, in the caller's transaction: a
   * FIXED reward's PENDING card (cancelled with it), or a CHOICE reward's remaining value. A card the
   * supplier has been asked for is refused (422): refunding it could pay for a card twice, and the
   * issuance settles it (REDEEMED, or FAILED with the value returned).
   */
  private async releaseHeld(manager: EntityManager, reward: RewardEntity, description: string): Promise<void> {
    const { id, accountId, currency } = reward;
    if (reward.type === 'FIXED') {
      const card = await this.rewards.lockCard(manager, { rewardId: id, status: 'PENDING' });
      if (card?.supplierRequestedAt) throw this.beingIssued(id);
      if (!card) return;
      await this.rewards.updateCard(manager, card.id, { status: 'CANCELED', heldForApproval: false });
      await this.release(manager, { accountId, currency, amountCents: card.amountCents, relatedType: 'card', relatedId: card.id, description });
    } else if (reward.remainingValueCents > 0) {
      await this.release(manager, { accountId, currency, amountCents: reward.remainingValueCents, relatedType: 'reward', relatedId: id, description });
    }
  }

  private recordDecision(manager: EntityManager, reward: RewardEntity, decision: 'APPROVED' | 'REJECTED', decider: ApprovalDecider | null): Promise<void> {
    return this.audit.record(manager, {
      accountId: reward.accountId,
      origin: decider?.origin ?? SCHEDULER_ORIGIN,
      action: 'approval.decided',
      targetType: 'reward',
      targetId: reward.id,
      metadata: { decision, faceValueCents: reward.faceValueCents, currency: reward.currency, ...(decider ? {} : { reason: 'undecided_30_days' }) },
    });
  }

  /**
   * Expire: due rewards (by the injected Clock, docs/testing.md) in batches, their remaining value
   * returned to the wallet. Only rewards with value left expire; one whose value is all in pending
   * cards is REDEEMED when they issue, or gets value back (and expires) if one fails. Returns how many expired.
   *
   * Each batch is one short transaction of two statements: lock up to `batchSize` due rewards
   * (skipping those another sweeper holds, so several share a drain), then one statement that
   * expires them, writes their timeline and `reward.expired` events and one RELEASE ledger row per
   * reward. The ledger applies a statement's rows to each wallet once, at the end of the statement
   * (docs/wallet-ledger.md), so the wallet row is locked only from there to the commit: sends to the
   * same merchant wait for a moment per batch, not for the batch's whole work (docs/rewards.md, Expiry).
   */
  async expireDue(batchSize = EXPIRY_BATCH_SIZE): Promise<number> {
    let expired = 0;
    for (;;) {
      const count = await this.dataSource.transaction(async (manager) => {
        const now = this.clock.now();
        const due = await this.rewards.lockDueForExpiry(manager, batchSize, now);
        if (due.length === 0) return 0;
        const releases: LedgerEntry[] = due.map((reward) => ({
          accountId: reward.accountId,
          currency: reward.currency,
          amountCents: reward.remainingValueCents,
          relatedType: 'reward',
          relatedId: reward.id,
          description: `Reward ${reward.id} expired`,
        }));
        for (const reward of due) {
          reward.status = 'EXPIRED';
          reward.remainingValueCents = 0;
        }
        const statement = new Statement();
        const updated = this.rewards.expireIn(
          statement,
          due.map((r) => r.id),
        );
        this.timeline.recordIn(
          statement,
          due.map((reward) => ({
            event: timelineEvent(reward.id, 'reward.expired', now),
            webhook: { accountId: reward.accountId, type: 'reward.expired' as const, data: rewardEventData(reward) },
          })),
        );
        const released = this.ledger.releaseEachIn(statement, releases);
        const [written] = (await manager.query(
          statement.text(`SELECT (SELECT count(*) FROM ${updated})::int AS updated, (SELECT count(*) FROM ${released})::int AS released`),
          statement.params,
        )) as { updated: number; released: number }[];
        // A reward whose value was already released means the state machine was bypassed: roll back.
        if (written.updated !== due.length || written.released !== due.length) {
          throw new Error(`expiry batch wrote ${written.updated} rewards and ${written.released} releases for ${due.length} due rewards`);
        }
        return due.length;
      });
      expired += count;
      if (count < batchSize) return expired;
    }
  }

  /**
   * Delivers scheduled sends whose time has come (by the injected Clock), a batch per transaction;
   * returns how many. Each batch locks up to `batchSize` due rewards, skipping those another worker
   * holds (FOR UPDATE SKIP LOCKED), and in the same transaction makes them SENT (`emailStatus`
   * QUEUED), releases their FIXED cards for ordering, inserts their e-mail jobs and writes
   * `reward.sent`: a reward leaves CREATED once, so however many workers drain at once, and whatever
   * dies mid-batch (the batch rolls back), each is sent once. The jobs are enqueued after commit; a
   * job lost with its process is found again by the reward-job sweeper. No wallet row is touched (the
   * value was held at create), so sends to the same merchant do not queue behind a drain.
   * A send still waiting for approval is left alone: it goes when approved (docs/delivery.md).
   */
  async deliverDue(batchSize = DELIVERY_BATCH_SIZE): Promise<number> {
    let delivered = 0;
    for (;;) {
      const work = await this.dataSource.transaction(async (manager) => {
        const now = this.clock.now();
        const due = await this.rewards.lockDueForDelivery(manager, batchSize, now);
        if (due.length === 0) return { count: 0, cardIds: [] as string[], mailJobIds: [] as string[] };
        const ids = due.map((r) => r.id);
        const mailJobIds = due.map(() => newId('mail'));
        // The text too, for a recipient with a phone (docs/delivery.md, SMS): it goes at delivery time, as the e-mail does.
        const texts = due.filter((reward) => reward.has_phone).map((reward) => ({ id: newId('mail'), rewardId: reward.id }));
        const statement = new Statement();
        const sent = statement.with(
          'delivered_rewards',
          `UPDATE rewards SET status = 'SENT', sent_at = ${statement.param(now)}::timestamptz, email_status = 'QUEUED'
            WHERE id = ANY(${statement.param(ids)}::text[]) AND status = 'CREATED'
            RETURNING id`,
        );
        const released = statement.with(
          'released_cards',
          `UPDATE reward_cards SET held_for_approval = false
            WHERE reward_id = ANY(${statement.param(ids)}::text[]) AND status = 'PENDING' AND held_for_approval
            RETURNING id`,
        );
        this.mailJobs.insertIn(statement, [
          ...due.map((reward, i) => ({ id: mailJobIds[i], rewardId: reward.id, kind: 'reward' as const })),
          ...texts.map((text) => ({ ...text, kind: 'reward' as const, channel: 'sms' as const })),
        ]);
        this.timeline.recordIn(
          statement,
          due.map((reward) => ({
            event: timelineEvent(reward.id, 'reward.sent', now, { channel: 'email' }),
            webhook: { accountId: reward.account_id, type: 'reward.sent' as const, data: rewardEventDataOfRow(reward, 'SENT') },
          })),
        );
        const [written] = (await manager.query(
          statement.text(`SELECT (SELECT count(*) FROM ${sent})::int AS sent, (SELECT array_agg(id) FROM ${released}) AS card_ids`),
          statement.params,
        )) as { sent: number; card_ids: string[] | null }[];
        if (written.sent !== due.length) throw new Error(`delivery batch sent ${written.sent} of ${due.length} due rewards`);
        return { count: due.length, cardIds: written.card_ids ?? [], mailJobIds: [...mailJobIds, ...texts.map((text) => text.id)] };
      });
      if (work.count > 0) await this.jobs.enqueue({ cardIds: work.cardIds, mailJobIds: work.mailJobIds });
      delivered += work.count;
      if (work.count < batchSize) return delivered;
    }
  }

  /**
   * Resend: queues the recipient e-mail again, in any state, and the text too when the reward has a
   * phone (every channel it has: docs/delivery.md, SMS); the timeline gets `reward.resent` per channel,
   * and the audit log one entry when a merchant asked for it (`origin`).
   */
  async resend(accountId: string, id: string, origin?: AuditOrigin): Promise<void> {
    const mailJobId = newId('mail');
    const smsJobId = newId('mail');
    let texted = false;
    await this.dataSource.transaction(async (manager) => {
      // No row lock: a resend changes nothing a concurrent issuance or cancel could race with.
      const reward = await this.rewards.find(manager, id, accountId);
      if (!reward) throw new NotFoundError('Reward');
      if (reward.approvalStatus === 'PENDING') {
        throw new ValidationError(`Reward ${id} is waiting for approval and has not been sent; there is nothing to resend.`);
      }
      if (awaitingDelivery(reward)) {
        throw new ValidationError(`Reward ${id} is scheduled for ${reward.deliverAt!.toISOString()} and has not been sent yet; there is nothing to resend.`);
      }
      await this.mailJobs.insert(manager, { id: mailJobId, rewardId: id, kind: 'resend' });
      texted = reward.recipientPhone !== null;
      if (texted) await this.mailJobs.insert(manager, { id: smsJobId, rewardId: id, kind: 'resend', channel: 'sms' });
      await this.rewards.update(manager, id, texted ? { emailStatus: 'QUEUED', smsStatus: 'QUEUED' } : { emailStatus: 'QUEUED' });
      const now = this.clock.now();
      await this.timeline.record(manager, [
        { event: timelineEvent(id, 'reward.resent', now, { channel: 'email' }) },
        ...(texted ? [{ event: timelineEvent(id, 'reward.resent', now, { channel: 'sms' }) }] : []),
      ]);
      if (origin) {
        await this.audit.record(manager, {
          accountId,
          origin,
          action: 'reward.resent',
          targetType: 'reward',
          targetId: id,
          metadata: { recipientEmail: reward.recipientEmail, valueCents: reward.faceValueCents, currency: reward.currency },
        });
      }
    });
    await this.jobs.enqueue({ mailJobIds: texted ? [mailJobId, smsJobId] : [mailJobId] });
  }

  /**
   * Corrects the recipient's address (docs/delivery.md, Correcting the address): only while the
   * reward is not yet opened and has value left, and then e-mails the new address, with the same
   * link. The timeline gets `reward.recipient_corrected` with both addresses; the audit log too.
   * The new address goes out with a new job, never by changing a pending one: the worker reads the
   * reward in the statement that takes its job (MailLease.takeReading), as of that statement's start.
   */
  async correctRecipient(accountId: string, id: string, email: string, origin: AuditOrigin): Promise<void> {
    const mailJobId = newId('mail');
    let mailed = false;
    await this.dataSource.transaction(async (manager) => {
      const reward = await this.rewards.lock(manager, id, accountId);
      if (!reward) throw new NotFoundError('Reward');
      if (reward.openedAt) throw new ValidationError(`Reward ${id} was already opened: its link reached the recipient, so the address cannot be changed.`);
      // A CHOICE reward's value left is its remaining value. A FIXED reward's is its card, issued or
      // not: REDEEMED only says the card exists, and nobody has seen it before the link is opened.
      const closed = reward.status === 'CANCELED' || reward.status === 'EXPIRED';
      const valueLeft = !closed && (reward.type === 'FIXED' || reward.remainingValueCents > 0);
      if (!valueLeft) throw new ValidationError(`Reward ${id} is ${reward.status} with no value left: there is nothing to send again.`);
      const previous = reward.recipientEmail;
      // A scheduled send not delivered yet: the new address gets the e-mail when it goes.
      const unsent = awaitingDelivery(reward);
      mailed = !unsent;
      if (unsent) {
        await this.rewards.update(manager, id, { recipientEmail: email });
      } else {
        await this.rewards.update(manager, id, { recipientEmail: email, emailStatus: 'QUEUED' });
        await this.mailJobs.insert(manager, { id: mailJobId, rewardId: id, kind: 'resend' });
      }
      await this.timeline.record(manager, [{ event: timelineEvent(id, 'reward.recipient_corrected', this.clock.now(), { channel: 'email', from: previous, to: email }) }]);
      await this.audit.record(manager, {
        accountId,
        origin,
        action: 'reward.recipient_corrected',
        targetType: 'reward',
        targetId: id,
        metadata: { from: previous, to: email },
      });
    });
    if (mailed) await this.jobs.enqueue({ mailJobIds: [mailJobId] });
  }

  /**
   * The relay accepted a reward e-mail: its job is SENT at `sentAt`, and the reward's `emailStatus` is
   * DELIVERED, unless a later e-mail of it (a resend, a correction) is still on its way.
   */
  emailDelivered(mail: { id: string; rewardId: string }, sentAt: Date): Promise<void> {
    return this.messageSent(mail, sentAt, 'email', `email_status = 'DELIVERED'`);
  }

  /**
   * A reward e-mail failed for good (a permanent refusal, or the last attempt): the job is FAILED,
   * the reward's `emailStatus` FAILED (unless a later e-mail is on its way), and the timeline and the
   * webhook get `reward.delivery_failed` with the server's reply (docs/delivery.md), in one transaction.
   */
  async emailFailed(mail: { id: string; rewardId: string }, reason: string): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      await this.mailJobs.markFailed(mail, reason, manager);
      const [reward] = await manager.query(
        `UPDATE rewards SET email_status = CASE
                  WHEN EXISTS (SELECT 1 FROM mail_jobs WHERE reward_id = $1 AND channel = 'email' AND status = 'PENDING' AND id <> $2) THEN email_status
                  ELSE 'FAILED' END
          WHERE id = $1
          RETURNING id`,
        [mail.rewardId, mail.id],
      );
      if (!reward) return;
      const current = (await this.rewards.find(manager, mail.rewardId))!;
      const text = reason.slice(0, 200);
      await this.timeline.record(manager, [
        {
          event: timelineEvent(mail.rewardId, 'reward.delivery_failed', this.clock.now(), { channel: 'email', reason: text }),
          webhook: {
            accountId: current.accountId,
            type: 'reward.delivery_failed',
            data: { ...rewardEventData(current), channel: 'email', reason: text },
          },
        },
      ]);
    });
  }

  /**
   * The SMS provider took a reward's text: its job is SENT at `sentAt`, and the reward's `smsStatus` is
   * SENT, unless a later text of it (a resend) is still on its way (docs/delivery.md, SMS).
   */
  smsSent(job: { id: string; rewardId: string }, sentAt: Date): Promise<void> {
    return this.messageSent(job, sentAt, 'sms', `sms_status = 'SENT'`, ' AND recipient_phone IS NOT NULL');
  }

  /**
   * A job's message went out: the job SENT and the reward's status for its channel (`set`), in one statement,
   * so that no crash leaves the job sent and the reward still waiting for it. The reward's update runs whatever
   * the job's did (a job already SENT by a duplicate run changes nothing); the pending check reads the rows as
   * they were before the statement, which is why it leaves this job out by its id.
   */
  private async messageSent(job: { id: string; rewardId: string }, sentAt: Date, channel: 'email' | 'sms', set: string, where = ''): Promise<void> {
    await this.dataSource.query(
      `WITH sent AS (UPDATE mail_jobs SET status = 'SENT', sent_at = $3, last_error = NULL WHERE id = $2 AND status = 'PENDING')
       UPDATE rewards SET ${set}
        WHERE id = $1${where}
          AND NOT EXISTS (SELECT 1 FROM mail_jobs WHERE reward_id = $1 AND channel = $4 AND status = 'PENDING' AND id <> $2)`,
      [job.rewardId, job.id, sentAt, channel],
    );
  }

  /**
   * A reward's text failed for good (the provider refused the number, or the last attempt): the job
   * is FAILED, the reward's `smsStatus` FAILED (unless a later text is on its way), and the timeline
   * and the webhook get `reward.delivery_failed` with `channel: "sms"` and the provider's answer, in
   * one transaction.
   */
  async smsFailed(job: { id: string; rewardId: string }, reason: string): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      await this.mailJobs.markFailed(job, reason, manager);
      const [reward] = await manager.query(
        `UPDATE rewards SET sms_status = CASE
                  WHEN EXISTS (SELECT 1 FROM mail_jobs WHERE reward_id = $1 AND channel = 'sms' AND status = 'PENDING' AND id <> $2) THEN sms_status
                  ELSE 'FAILED' END
          WHERE id = $1 AND recipient_phone IS NOT NULL
          RETURNING id`,
        [job.rewardId, job.id],
      );
      if (!reward) return;
      const current = (await this.rewards.find(manager, job.rewardId))!;
      const text = reason.slice(0, 200);
      await this.timeline.record(manager, [
        {
          event: timelineEvent(job.rewardId, 'reward.delivery_failed', this.clock.now(), { channel: 'sms', reason: text }),
          webhook: {
            accountId: current.accountId,
            type: 'reward.delivery_failed',
            data: { ...rewardEventData(current), channel: 'sms', reason: text },
          },
        },
      ]);
    });
  }

  private beingIssued(id: string): ValidationError {
    return new ValidationError(`Reward ${id}'s card is being issued and can no longer be cancelled; retry to see the outcome.`);
  }

  /** FIXED: REDEEMED with its card. CHOICE: REDEEMED once nothing is left or pending, else PARTIALLY_REDEEMED. */
  private async statusAfterCard(manager: EntityManager, reward: RewardEntity, cardId: string): Promise<RewardStatus | null> {
    if (reward.status === 'CANCELED' || reward.status === 'EXPIRED') return null;
    if (reward.type === 'FIXED') return 'REDEEMED';
    if (reward.remainingValueCents > 0) return 'PARTIALLY_REDEEMED';
    const pending = await this.rewards.countCards(manager, reward.id, 'PENDING', cardId);
    return pending > 0 ? 'PARTIALLY_REDEEMED' : 'REDEEMED';
  }

  /**
   * Returns reserved funds to the wallet of the reward's own currency, never converted back, whatever
   * wallet funded the send (docs/currencies.md). A release that finds its movement already done means the
   * state machine was bypassed: the transaction rolls back.
   */
  private async release(manager: EntityManager, entry: LedgerEntry): Promise<void> {
    if (!(await this.ledger.release(manager, entry))) {
      throw new Error(`ledger refused a second release of ${entry.relatedType} ${entry.relatedId}`);
    }
  }

  private cardEntry(
    reward: RewardEntity,
    card: RewardCardEntity,
    type: 'card.issued' | 'card.failed',
    status: string,
    at: Date,
    metadata: Record<string, unknown> = {},
  ): TimelineEntry {
    return {
      event: timelineEvent(reward.id, type, at, { cardId: card.id, ...metadata }),
      webhook: { accountId: reward.accountId, type, data: cardEventData(reward.id, card, status) },
    };
  }
}
