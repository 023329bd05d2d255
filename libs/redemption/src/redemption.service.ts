import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { AccountService } from '@app/account';
import {
  claimIdempotencyKey,
  fingerprint,
  hashSecret,
  NotFoundError,
  queryRows,
  formatMoney,
  ValidationError,
} from '@app/core';
import {
  IssuedCardDto,
  RedemptionLinkEntity,
  RewardCardEntity,
  RewardCatalog,
  rewardEventData,
  RewardEntity,
  RewardJobs,
  RewardStatus,
  RewardWriter,
  toIssuedCardDto,
} from '@app/rewards';
import type { PickableBrandView, PickCardDto, RedemptionStateView } from './dto/redemption.dto';

/** Tokens are base62 text of 256 random bits; anything else cannot be a token and costs no query. */
const TOKEN_SHAPE = /^[0-9A-Za-z]{20,100}$/;
/** Statuses in which a CHOICE reward still takes picks (expiry is checked by time as well). */
const PICKABLE: RewardStatus[] = ['CREATED', 'SENT', 'OPENED', 'PARTIALLY_REDEEMED'];

const cents = (major: number | null) => Math.round((major ?? 0) * 100);

export interface PickOutcome {
  status: 200 | 201;
  replayed: boolean;
  body: { card: IssuedCardDto };
}

/**
 * The recipient's side of a reward, reached only through a redemption link token. The token is
 * looked up by its SHA-256 (a unique index), so the time a lookup takes says nothing about how
 * close a guess came: there is no comparison of secret bytes to time.
 */
@Injectable()
export class RedemptionService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly catalog: RewardCatalog,
    private readonly writer: RewardWriter,
    private readonly jobs: RewardJobs,
    private readonly accounts: AccountService,
  ) {}

  /** The reward a token opens, or null for an unknown token. */
  async find(token: string, manager: EntityManager = this.dataSource.manager): Promise<RewardEntity | null> {
    const rewardId = await this.rewardIdOf(token, manager);
    return rewardId ? manager.findOneBy(RewardEntity, { id: rewardId }) : null;
  }

  /**
   * First view: openedAt and `reward.opened` once, whatever the status; SENT becomes OPENED
   * (DECISIONS §4). The conditional UPDATE lets exactly one of several concurrent opens win.
   */
  async markOpened(reward: RewardEntity): Promise<RewardEntity> {
    if (reward.openedAt) return reward;
    return this.dataSource.transaction(async (manager) => {
      const [won] = await queryRows<{ id: string }>(
        manager,
        `UPDATE rewards SET opened_at = clock_timestamp(),
                status = CASE WHEN status = 'SENT' THEN 'OPENED' ELSE status END
          WHERE id = $1 AND opened_at IS NULL
          RETURNING id`,
        [reward.id],
      );
      const current = await manager.findOneByOrFail(RewardEntity, { id: reward.id });
      if (won) {
        await this.writer.recordTimeline(manager, [
          {
            event: RewardWriter.event(reward.id, 'reward.opened'),
            webhook: { accountId: reward.accountId, type: 'reward.opened', data: rewardEventData(current) },
          },
        ]);
      }
      return current;
    });
  }

  async state(reward: RewardEntity): Promise<RedemptionStateView> {
    const [account, cards] = await Promise.all([
      this.accounts.get(reward.accountId),
      this.dataSource.manager.find(RewardCardEntity, { where: { rewardId: reward.id }, order: { seq: 'ASC' } }),
    ]);
    const canPick = this.canPick(reward);
    return {
      reward: {
        type: reward.type,
        status: reward.status,
        faceValueCents: reward.faceValueCents,
        remainingValueCents: reward.remainingValueCents,
        currency: reward.currency,
        recipientFirstName: reward.recipientFirstName,
        message: reward.message,
        senderName: account.senderName ?? account.name,
        logoUrl: account.logoUrl,
        brandColor: account.brandColor,
        expiresAt: reward.expiresAt?.toISOString() ?? null,
        brandName: reward.brandName,
        brandImageUrl: reward.brandImageUrl,
        canPick,
      },
      // The recipient holds the link, so the cards are theirs: credentials in full.
      cards: cards.filter((card) => card.status !== 'CANCELED').map((card) => toIssuedCardDto(card, true)),
      brands: canPick ? await this.pickableBrands(reward) : [],
    };
  }

  /**
   * Moves `amountCents` from the reward's remaining value into a new PENDING card (DECISIONS §4)
   * and queues its issuance after commit. The reward row is locked first, as issuance and cancel
   * lock it, so concurrent picks queue up on it and can never spend the same value twice.
   */
  async pick(token: string, dto: PickCardDto, idempotencyKey: string | null): Promise<PickOutcome> {
    const outcome = await this.dataSource.transaction(async (manager): Promise<PickOutcome> => {
      const rewardId = await this.rewardIdOf(token, manager);
      if (!rewardId) throw new NotFoundError('Redemption link');
      const reward = await manager
        .getRepository(RewardEntity)
        .createQueryBuilder('r')
        .setLock('pessimistic_write')
        .where('r.id = :id', { id: rewardId })
        .getOneOrFail();
      const claim = idempotencyKey
        ? await claimIdempotencyKey(manager, {
            scope: reward.id,
            key: idempotencyKey,
            operation: 'redemption.pick',
            requestHash: fingerprint(dto),
          })
        : null;
      if (claim?.kind === 'replay') {
        return { status: 200, replayed: true, body: claim.response.body as { card: IssuedCardDto } };
      }

      const card = await this.checkedCard(reward, dto, manager);
      await manager.insert(RewardCardEntity, card);
      const changes: Partial<RewardEntity> = { remainingValueCents: reward.remainingValueCents - dto.amountCents };
      // The issuance makes it REDEEMED once nothing is left or pending.
      const next: RewardStatus = 'PARTIALLY_REDEEMED';
      if (reward.status !== next) changes.status = next;
      await manager.update(RewardEntity, { id: reward.id }, changes);
      Object.assign(reward, changes);
      if (changes.status) {
        await this.writer.recordTimeline(manager, [
          {
            event: RewardWriter.event(reward.id, 'reward.partially_redeemed', { cardId: card.id }),
            webhook: { accountId: reward.accountId, type: 'reward.partially_redeemed', data: rewardEventData(reward) },
          },
        ]);
      }
      const body = { card: toIssuedCardDto(card, true) };
      await claim?.complete(201, body);
      return { status: 201, replayed: false, body };
    });
    if (!outcome.replayed) await this.jobs.enqueue({ cardIds: [outcome.body.card.id] });
    return outcome;
  }

  canPick(reward: RewardEntity, now = new Date()): boolean {
    return (
      reward.type === 'CHOICE' &&
      PICKABLE.includes(reward.status) &&
      reward.remainingValueCents > 0 &&
      !(reward.expiresAt && reward.expiresAt <= now)
    );
  }

  private async rewardIdOf(token: string, manager: EntityManager): Promise<string | null> {
    if (!TOKEN_SHAPE.test(token)) return null;
    const link = await manager.findOne(RedemptionLinkEntity, { where: { tokenHash: hashSecret(token) }, select: { rewardId: true } });
    return link?.rewardId ?? null;
  }

  /** The pick rules of DECISIONS §7, checked against the synced catalog in the reward's currency. */
  private async checkedCard(reward: RewardEntity, dto: PickCardDto, manager: EntityManager): Promise<RewardCardEntity> {
    if (reward.type !== 'CHOICE') throw new ValidationError('This reward is a specific gift card; there is nothing to pick.');
    if (!PICKABLE.includes(reward.status)) {
      throw new ValidationError(`This reward is ${reward.status.toLowerCase().replace('_', ' ')} and takes no more picks.`);
    }
    if (reward.expiresAt && reward.expiresAt <= new Date()) throw new ValidationError('This reward has expired and takes no more picks.');

    const catalog = await this.catalog.load(reward.currency, manager);
    const found = catalog.items.get(dto.utid);
    if (!found) throw new ValidationError(`Item ${dto.utid} is not available in ${reward.currency}.`);
    const { item, brand } = found;
    if (reward.allowedBrandKeys && !reward.allowedBrandKeys.includes(brand.brandKey)) {
      throw new ValidationError(`${brand.name} is not one of the brands this reward can be spent on.`);
    }
    const money = (amount: number) => formatMoney(amount, reward.currency);
    if (item.valueType === 'FIXED_VALUE' && dto.amountCents !== cents(item.faceValue)) {
      throw new ValidationError(`${item.rewardName} has a face value of ${money(cents(item.faceValue))}.`);
    }
    if (item.valueType === 'VARIABLE_VALUE' && (dto.amountCents < cents(item.minValue) || dto.amountCents > cents(item.maxValue))) {
      throw new ValidationError(`${item.rewardName} takes ${money(cents(item.minValue))} to ${money(cents(item.maxValue))}.`);
    }
    if (dto.amountCents > reward.remainingValueCents) {
      throw new ValidationError(`${money(dto.amountCents)} is more than the ${money(reward.remainingValueCents)} left.`);
    }
    return RewardWriter.pendingCard(
      reward,
      { utid: item.utid, rewardName: item.rewardName, brandKey: brand.brandKey, brandName: brand.name, brandImageUrl: brand.imageUrl },
      dto.amountCents,
    );
  }

  private async pickableBrands(reward: RewardEntity): Promise<PickableBrandView[]> {
    const catalog = await this.catalog.load(reward.currency);
    const allowed = reward.allowedBrandKeys ? new Set(reward.allowedBrandKeys) : null;
    const brands = new Map<string, PickableBrandView>();
    for (const { item, brand } of catalog.items.values()) {
      if (allowed && !allowed.has(brand.brandKey)) continue;
      let view = brands.get(brand.brandKey);
      if (!view) {
        view = { brandKey: brand.brandKey, name: brand.name, imageUrl: brand.imageUrl, items: [] };
        brands.set(brand.brandKey, view);
      }
      const fixed = item.valueType === 'FIXED_VALUE';
      view.items.push({
        utid: item.utid,
        rewardName: item.rewardName,
        valueType: item.valueType,
        faceValueCents: fixed ? cents(item.faceValue) : null,
        minValueCents: fixed ? null : cents(item.minValue),
        maxValueCents: fixed ? null : cents(item.maxValue),
      });
    }
    return [...brands.values()];
  }
}
