import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager, In, IsNull, Not } from 'typeorm';
import { Condition, Cte, entityFromRow, entityRow, hashSecret, KeyRing, PageSelect, queryRows, randomToken, sealContext, SealedColumn, Statement } from '@app/core';
import type { RewardView } from '../dto/reward.dto';
import { RedemptionLinkEntity } from '../entities/redemption-link.entity';
import { CardStatus, RewardCardEntity, StoredCredential } from '../entities/reward-card.entity';
import { RewardEventEntity } from '../entities/reward-event.entity';
import { OPEN_REWARD_STATUSES, RewardEntity } from '../entities/reward.entity';
import type { PreparedRewards } from '../reward-drafts';
import { CARD_ISSUANCE_LEASE } from './issuance-lease';
import { MailJobRepository } from './mail-job.repository';
import { REWARD_EVENT_COLUMNS, rewardEventData, RewardEventRow } from './reward-webhook-data';
import { RewardTimeline } from './reward-timeline';

/** A scheduled send due for delivery, locked by the delivery batch (docs/delivery.md, Exactly once, in batches). */
export interface DueDelivery extends RewardEventRow {
  has_phone: boolean;
}

/**
 * The label of a page row's sender (`createdBy.label`, docs/rewards.md, Who sent it), read from the
 * owners' tables by primary key: the user's e-mail, the key's name, the app's name.
 */
const CREATED_BY_LABEL = `CASE p.created_by_type
                WHEN 'user' THEN (SELECT u.email FROM users u WHERE u.id = p.created_by_id)
                WHEN 'api_key' THEN (SELECT NULLIF(k.name, '') FROM api_keys k WHERE k.id = p.created_by_id)
                WHEN 'oauth_app' THEN (SELECT o.name FROM oauth_clients o WHERE o.id = p.created_by_id)
              END`;

/** Tokens are base62 text of 256 random bits; anything else cannot be a token and costs no query. */
const TOKEN_SHAPE = /^[0-9A-Za-z]{20,100}$/;

/** Associated data of a card's sealed credentials: moved to another card or account, they do not open. */
export function cardCredentialsContext(cardId: string, accountId: string): string {
  return sealContext('reward_cards.credentials', cardId, accountId);
}

/** Associated data of a reward's sealed redemption token. */
export function redemptionTokenContext(rewardId: string, accountId: string): string {
  return sealContext('redemption_links.token', rewardId, accountId);
}

/** The sealed columns of rewards, for `encryption:rotate` (docs/secrets.md). */
export const REWARD_SEALED_COLUMNS: SealedColumn[] = [
  {
    table: 'reward_cards',
    column: 'credentials',
    key: ['id'],
    contextColumns: ['account_id'],
    context: (row) => cardCredentialsContext(row.id, row.account_id),
  },
  {
    table: 'redemption_links',
    column: 'token_sealed',
    key: ['token_hash'],
    contextColumns: ['reward_id', 'account_id'],
    context: (row) => redemptionTokenContext(row.reward_id, row.account_id),
  },
];

/**
 * The rows of the reward aggregate (rewards, their cards and links; the e-mail jobs are
 * MailJobRepository's, the timeline RewardTimeline's): how they are read, locked and written.
 * RewardLifecycle uses it, and besides it only the send (which creates rewards) and the worker's
 * sweeper, so every change of a reward's state goes through the lifecycle's rules. The card lease
 * (IssuanceLease) writes its own columns, with the statements CARD_ISSUANCE_LEASE renders.
 */
@Injectable()
export class RewardRepository {
  constructor(
    private readonly dataSource: DataSource,
    private readonly timeline: RewardTimeline,
    private readonly mailJobs: MailJobRepository,
    private readonly keyRing: KeyRing,
  ) {}

  /**
   * Locks reward `id` (of `accountId`, when given) until the caller's transaction ends. Issuance's
   * settle, picks and cancel all take this lock first, then any card's: one order, so they queue up
   * on the reward and never deadlock. None of them holds it across a supplier call.
   */
  lock(manager: EntityManager, id: string, accountId?: string): Promise<RewardEntity | null> {
    const query = this.locking(manager).where('r.id = :id', { id });
    if (accountId !== undefined) query.andWhere('r.account_id = :accountId', { accountId });
    return query.getOne();
  }

  /**
   * Locks up to `limit` open rewards with value left whose expiry is at or before `now` (the service's
   * Clock, not the database's now(), so tests can move it), skipping those another transaction holds,
   * so several sweepers share the work without taking one reward twice.
   */
  lockDueForExpiry(manager: EntityManager, limit: number, now: Date): Promise<RewardEntity[]> {
    return this.locking(manager)
      .setOnLocked('skip_locked')
      .where('r.expires_at <= :now AND r.status IN (:...open) AND r.remaining_value_cents > 0', { now, open: OPEN_REWARD_STATUSES })
      .orderBy('r.expires_at')
      .limit(limit)
      .getMany();
  }

  /**
   * Scheduled sends due by `now` and not waiting for approval, locked, skipping those another worker
   * holds (docs/delivery.md, Scheduled sends); the partial index rewards_deliver_due_idx serves it.
   */
  lockDueForDelivery(manager: EntityManager, limit: number, now: Date): Promise<DueDelivery[]> {
    // Raw rows, not entities: a drain of a hundred thousand reads only what the batch writes and tells.
    return queryRows<DueDelivery>(
      manager,
      `SELECT ${REWARD_EVENT_COLUMNS}, r.recipient_phone IS NOT NULL AS has_phone
         FROM rewards r
        WHERE r.status = 'CREATED' AND r.deliver_at IS NOT NULL AND r.deliver_at <= $1 AND r.approval_status IS DISTINCT FROM 'PENDING'
        ORDER BY r.deliver_at
        LIMIT $2
          FOR UPDATE SKIP LOCKED`,
      [now, limit],
    );
  }

  private locking(manager: EntityManager) {
    return manager.getRepository(RewardEntity).createQueryBuilder('r').setLock('pessimistic_write');
  }

  /** Locks a card (after its reward, see `lock`). */
  async lockCard(manager: EntityManager, where: { id: string } | { rewardId: string; status: CardStatus }): Promise<RewardCardEntity | null> {
    const query = manager.getRepository(RewardCardEntity).createQueryBuilder('c').setLock('pessimistic_write');
    const card = await ('id' in where
      ? query.where('c.id = :id', { id: where.id })
      : query.where('c.reward_id = :rewardId AND c.status = :status', where)
    ).getOne();
    return card && this.opened(card);
  }

  /**
   * PENDING cards older than `orphanAfter` at `now` whose lease is not live, oldest first: a job that was
   * never enqueued or was lost, or a run that died at the supplier (the sweeper enqueues them again).
   * `now` is the service's clock, the one a card's `created_at` is stamped by (docs/testing.md, Time).
   */
  async cardsToSweep(orphanAfter: string, limit: number, now: Date): Promise<string[]> {
    const rows: { id: string }[] = await this.dataSource.query(
      [
        `SELECT c.id FROM reward_cards c`,
        ` WHERE ${CARD_ISSUANCE_LEASE.pending('c')} AND c.created_at < $3::timestamptz - $1::interval`,
        `   AND ${CARD_ISSUANCE_LEASE.free('c')}`,
        ` ORDER BY c.created_at LIMIT $2`,
      ].join('\n'),
      [orphanAfter, limit, now],
    );
    return rows.map((row) => row.id);
  }

  /** A FIXED reward's PENDING card that the supplier was asked for, read without any lock. */
  async fixedCardAtSupplier(manager: EntityManager, rewardId: string, accountId: string): Promise<boolean> {
    const rows = await manager.query(
      `SELECT 1 FROM reward_cards c JOIN rewards r ON r.id = c.reward_id
        WHERE c.reward_id = $1 AND r.account_id = $2 AND r.type = 'FIXED'
          AND c.status = 'PENDING' AND c.supplier_requested_at IS NOT NULL
        LIMIT 1`,
      [rewardId, accountId],
    );
    return rows.length > 0;
  }

  /** Whether the account has this reward, without loading it. */
  exists(manager: EntityManager, id: string, accountId: string): Promise<boolean> {
    return manager.existsBy(RewardEntity, { id, accountId });
  }

  find(manager: EntityManager, id: string, accountId?: string): Promise<RewardEntity | null> {
    return manager.findOneBy(RewardEntity, accountId === undefined ? { id } : { id, accountId });
  }

  /** Locks the reward of a card (the reward first, see `lock`), found by the card's id in the same statement. */
  lockOfCard(manager: EntityManager, cardId: string): Promise<RewardEntity | null> {
    return this.locking(manager).where('r.id = (SELECT c.reward_id FROM reward_cards c WHERE c.id = :cardId)', { cardId }).getOne();
  }

  /** The reward a link token opens. Looked up by the token's hash (a unique index). */
  async rewardIdOfToken(manager: EntityManager, token: string): Promise<string | null> {
    if (!TOKEN_SHAPE.test(token)) return null;
    const link = await manager.findOne(RedemptionLinkEntity, { where: { tokenHash: hashSecret(token) }, select: { rewardId: true } });
    return link?.rewardId ?? null;
  }

  /**
   * A list page of rewards (readListPage's PageSelect), each with its cards and timeline (oldest
   * first) as JSON arrays in the page's own statement: one round trip for a page of 100, mapped from
   * plain rows rather than hydrated entity by entity (docs/pagination.md, Cost of a page).
   */
  readonly pageOfViews: PageSelect<RewardView> = {
    sql: (page, order) => `SELECT p.*,
              ${CREATED_BY_LABEL} AS created_by_label,
              (SELECT json_agg(c ORDER BY c.seq) FROM reward_cards c WHERE c.reward_id = p.id) AS reward_cards,
              (SELECT json_agg(e ORDER BY e.seq) FROM reward_events e WHERE e.reward_id = p.id) AS reward_events
         FROM (${page}) AS p
        ORDER BY ${order}`,
    map: (rows) => {
      const { reward, card, event } = this.mappers();
      return rows.map((row) => ({
        reward: reward(row),
        cards: (row.reward_cards as Record<string, unknown>[] | null)?.map((c) => this.opened(card(c))) ?? [],
        events: (row.reward_events as Record<string, unknown>[] | null)?.map(event) ?? [],
        createdByLabel: (row.created_by_label as string | null) ?? null,
      }));
    },
  };

  /** One reward of the account with its cards and timeline, read as a list item is (`pageOfViews`), or null. */
  async view(manager: EntityManager, id: string, accountId: string): Promise<RewardView | null> {
    const rows: Record<string, unknown>[] = await manager.query(
      this.pageOfViews.sql('SELECT t.* FROM rewards t WHERE t.id = $1 AND t.account_id = $2', 'p.id'),
      [id, accountId],
    );
    return this.pageOfViews.map(rows)[0] ?? null;
  }

  private rowMappers?: {
    reward: (row: Record<string, unknown>) => RewardEntity;
    card: (row: Record<string, unknown>) => RewardCardEntity;
    event: (row: Record<string, unknown>) => RewardEventEntity;
  };

  private mappers() {
    this.rowMappers ??= {
      reward: entityFromRow<RewardEntity>(this.dataSource.getMetadata(RewardEntity)),
      card: entityFromRow<RewardCardEntity>(this.dataSource.getMetadata(RewardCardEntity)),
      event: entityFromRow<RewardEventEntity>(this.dataSource.getMetadata(RewardEventEntity)),
    };
    return this.rowMappers;
  }

  async cardsOf(manager: EntityManager, rewardIds: string[]): Promise<RewardCardEntity[]> {
    const cards = await manager.find(RewardCardEntity, { where: { rewardId: In(rewardIds) }, order: { seq: 'ASC' } });
    return cards.map((card) => this.opened(card));
  }

  /** The credentials sealed for this card and its account (docs/secrets.md), as `updateCard` stores them. */
  sealCredentials(card: Pick<RewardCardEntity, 'id' | 'accountId'>, credentials: StoredCredential[]): string {
    return this.keyRing.encrypt(JSON.stringify(credentials), cardCredentialsContext(card.id, card.accountId));
  }

  /** Fills in `credentials` from the sealed column. */
  private opened(card: RewardCardEntity): RewardCardEntity {
    const sealed = card.sealedCredentials;
    card.credentials =
      sealed === null ? null : (JSON.parse(this.keyRing.decrypt(sealed, cardCredentialsContext(card.id, card.accountId))) as StoredCredential[]);
    return card;
  }

  countCards(manager: EntityManager, rewardId: string, status: CardStatus, exceptCardId?: string): Promise<number> {
    const query = manager
      .createQueryBuilder(RewardCardEntity, 'c')
      .where('c.reward_id = :rewardId AND c.status = :status', { rewardId, status });
    if (exceptCardId) query.andWhere('c.id <> :exceptCardId', { exceptCardId });
    return query.getCount();
  }

  async update(manager: EntityManager, ids: string | string[], changes: Parameters<EntityManager['update']>[2]): Promise<void> {
    await manager.update(RewardEntity, ids, changes);
  }

  /** Gives `cents` back to a reward's remaining value (a failed CHOICE card's) with its new status. */
  async addValue(manager: EntityManager, id: string, cents: number, status: RewardEntity['status']): Promise<void> {
    await manager.query(`UPDATE rewards SET remaining_value_cents = remaining_value_cents + $2::bigint, status = $3 WHERE id = $1`, [id, cents, status]);
  }

  async updateCard(manager: EntityManager, id: string, changes: Partial<Omit<RewardCardEntity, 'credentials'>>): Promise<void> {
    await manager.update(RewardCardEntity, { id }, changes);
  }

  /**
   * The reward's one redemption token (docs/redemption.md, One link), read back from its sealed
   * copy. A reward sent before rewards kept one gets one now (several callers at once agree on one).
   * `sealed`: the sealed copy when the caller has already read it with the reward (the e-mail does).
   */
  async redemptionToken(manager: EntityManager, reward: Pick<RewardEntity, 'id' | 'accountId'>, sealed?: string | null): Promise<string> {
    const context = redemptionTokenContext(reward.id, reward.accountId);
    if (sealed) return this.keyRing.decrypt(sealed, context);
    const read = async () => {
      const link = await manager.findOne(RedemptionLinkEntity, { where: { rewardId: reward.id, tokenSealed: Not(IsNull()) }, select: { tokenSealed: true } });
      return link ? this.keyRing.decrypt(link.tokenSealed!, context) : null;
    };
    const existing = await read();
    if (existing) return existing;
    const token = randomToken(32);
    await manager.query(
      `INSERT INTO redemption_links (token_hash, reward_id, account_id, channel, token_sealed) VALUES ($1, $2, $3, 'api', $4)
       ON CONFLICT (reward_id) WHERE token_sealed IS NOT NULL DO NOTHING`,
      [hashSecret(token), reward.id, reward.accountId, this.keyRing.encrypt(token, context)],
    );
    return (await read())!;
  }

  /** Sets openedAt to `at` on the first view (SENT becomes OPENED); true only for the one view that did. */
  async markOpened(manager: EntityManager, id: string, at: Date): Promise<boolean> {
    const [won] = await queryRows<{ id: string }>(
      manager,
      `UPDATE rewards SET opened_at = $2,
              status = CASE WHEN status = 'SENT' THEN 'OPENED' ELSE status END
        WHERE id = $1 AND opened_at IS NULL
        RETURNING id`,
      [id, at],
    );
    return Boolean(won);
  }

  /**
   * Adds the writes of new rewards to `statement`: the rewards, FIXED cards, redemption links,
   * e-mail jobs, timeline and outbox events, done only if `onlyIf` holds. Funds are the caller's to
   * hold, in the same statement.
   */
  insertNewIn(statement: Statement, prepared: PreparedRewards, options: { onlyIf?: Condition } = {}): void {
    const all = prepared.rewards;
    const rewards = this.dataSource.getMetadata(RewardEntity);
    statement.insertRows('new_rewards', 'rewards', all.map((w) => entityRow(rewards, w.view.reward)), options);
    const cards = all.flatMap((w) => w.view.cards);
    if (cards.length) this.insertCardsIn(statement, cards, options);
    statement.insertRows(
      'new_links',
      'redemption_links',
      all.map((w) => ({
        token_hash: hashSecret(w.token),
        reward_id: w.view.reward.id,
        account_id: prepared.accountId,
        channel: 'api',
        token_sealed: this.keyRing.encrypt(w.token, redemptionTokenContext(w.view.reward.id, prepared.accountId)),
      })),
      options,
    );
    // A send waiting for approval gets its e-mail job when it is approved (docs/controls.md).
    // A recipient with a phone gets a text as well as the e-mail (docs/delivery.md, SMS): a job of its own.
    const jobs = all.flatMap((w) => [
      ...(w.mailJobId ? [{ id: w.mailJobId, rewardId: w.view.reward.id, kind: 'reward' as const, channel: 'email' as const }] : []),
      ...(w.smsJobId ? [{ id: w.smsJobId, rewardId: w.view.reward.id, kind: 'reward' as const, channel: 'sms' as const }] : []),
    ]);
    if (jobs.length) this.mailJobs.insertIn(statement, jobs, options);
    this.timeline.recordIn(
      statement,
      all.flatMap((w) =>
        w.view.events.map((event) => ({
          event,
          webhook: {
            accountId: prepared.accountId,
            type: event.type as 'reward.created' | 'reward.sent' | 'reward.approval_required',
            data: rewardEventData(w.view.reward, event.type === 'reward.sent' ? 'SENT' : 'CREATED'),
          },
        })),
      ),
      options,
    );
  }

  insertCardsIn(statement: Statement, cards: RewardCardEntity[], options: { onlyIf?: Condition } = {}): void {
    const metadata = this.dataSource.getMetadata(RewardCardEntity);
    statement.insertRows('new_cards', 'reward_cards', cards.map((card) => entityRow(metadata, card)), options);
  }

  /** Adds to `statement` the expiry of rewards (locked by the caller): EXPIRED, nothing left. */
  expireIn(statement: Statement, ids: string[]): Cte {
    return statement.with(
      'expired_rewards',
      `UPDATE rewards SET status = 'EXPIRED', remaining_value_cents = 0
        WHERE id = ANY(${statement.param(ids)}::text[])
        RETURNING id`,
    );
  }

  /**
   * Adds the card's move to ISSUED, with its sealed credentials, to `statement` (a settle: the card
   * is locked and PENDING). The returned CTE holds the card's id.
   */
  issueCardIn(
    statement: Statement,
    card: Pick<RewardCardEntity, 'id' | 'accountId'>,
    issued: { credentials: StoredCredential[]; redemptionInstructions: string },
    issuedAt: Date,
  ): Cte {
    return statement.with(
      'issued_card',
      `UPDATE reward_cards SET status = 'ISSUED', ${CARD_ISSUANCE_LEASE.end},
              credentials = ${statement.param(this.sealCredentials(card, issued.credentials))},
              redemption_instructions = ${statement.param(issued.redemptionInstructions)},
              issued_at = ${statement.param(issuedAt.toISOString())}::timestamptz
        WHERE id = ${statement.param(card.id)} AND status = 'PENDING'
        RETURNING id`,
    );
  }

  /** Adds a reward's new status (and when it was redeemed, if it now is) to `statement`. */
  updateStatusIn(statement: Statement, reward: Pick<RewardEntity, 'id' | 'status' | 'redeemedAt'>): void {
    statement.with(
      'reward_status',
      `UPDATE rewards SET status = ${statement.param(reward.status)},
              redeemed_at = ${statement.param(reward.redeemedAt ? reward.redeemedAt.toISOString() : null)}::timestamptz
        WHERE id = ${statement.param(reward.id)}`,
    );
  }

  /** Adds an update of a reward's value and status to `statement`. */
  updateValueIn(statement: Statement, reward: Pick<RewardEntity, 'id' | 'remainingValueCents' | 'status'>): void {
    statement.with(
      'reward_update',
      `UPDATE rewards SET remaining_value_cents = ${statement.param(reward.remainingValueCents)}::bigint,
              status = ${statement.param(reward.status)}
        WHERE id = ${statement.param(reward.id)}`,
    );
  }
}
