import { Injectable } from '@nestjs/common';
import { AccountService } from '@app/account';
import { NotFoundError } from '@app/core';
import { CatalogRulesService, rulesAllow } from '@app/catalog';
import { awaitingDelivery, PickOutcome, RedeemableReward, RewardCatalog, RewardLifecycle, valueRuleOf } from '@app/rewards';
import type { PickableBrandView, PickCardDto, RedemptionStateView } from './dto/redemption.dto';

/**
 * The recipient's side of a reward, reached only through a redemption link token. The token is
 * looked up by its SHA-256 (a unique index), so the time a lookup takes says nothing about how
 * close a guess came: there is no comparison of secret bytes to time. Every change to the reward
 * (its opening, a pick) is RewardLifecycle's.
 */
@Injectable()
export class RedemptionService {
  constructor(
    private readonly lifecycle: RewardLifecycle,
    private readonly catalog: RewardCatalog,
    private readonly accounts: AccountService,
    private readonly rules: CatalogRulesService,
  ) {}

  /** The reward a token opens, or null for an unknown token. */
  find(token: string): Promise<RedeemableReward | null> {
    return this.lifecycle.findByToken(token);
  }

  /** First view: see RewardLifecycle.open. */
  markOpened(reward: RedeemableReward): Promise<void> {
    // A send waiting for approval has not reached its recipient: a view of it opens nothing (docs/controls.md).
    if (reward.approvalStatus === 'PENDING') return Promise.resolve();
    // Nor does one of a scheduled send before its delivery time (docs/delivery.md, Scheduled sends).
    if (awaitingDelivery(reward)) return Promise.resolve();
    return this.lifecycle.open(reward);
  }

  /** What the recipient sees now: the reward and its cards as one committed state, with the sender's branding. */
  async state(found: RedeemableReward): Promise<RedemptionStateView> {
    const [{ reward, cards }, account] = await Promise.all([this.lifecycle.recipientView(found.id), this.accounts.get(found.accountId)]);
    // Waiting for approval: the public view only, no cards, no brands or items, and no date it becomes available.
    const held = reward.approvalStatus === 'PENDING';
    // A scheduled send before delivery: the same public view, with the time it becomes usable.
    const scheduled = !held && awaitingDelivery(reward);
    const hidden = held || scheduled;
    const canPick = !held && this.lifecycle.takesPicks(reward);
    return {
      reward: {
        type: reward.type,
        status: reward.status,
        faceValueCents: reward.faceValueCents,
        remainingValueCents: reward.remainingValueCents,
        currency: reward.currency,
        recipientFirstName: reward.recipientFirstName,
        language: reward.recipientLanguage,
        message: reward.message,
        senderName: account.senderName ?? account.name,
        logoUrl: account.logoUrl,
        brandColor: account.brandColor,
        expiresAt: reward.expiresAt?.toISOString() ?? null,
        brandName: hidden ? null : reward.brandName,
        brandImageUrl: hidden ? null : reward.brandImageUrl,
        canPick,
        ...(held ? { availableAt: null } : scheduled ? { availableAt: reward.deliverAt!.toISOString() } : {}),
      },
      // The recipient holds the link, so the cards are theirs: credentials in full.
      cards: hidden ? [] : cards,
      brands: canPick ? await this.pickableBrands(reward) : [],
    };
  }

  /**
   * The sender's preview of the page (docs/redemption.md, Preview): the state the recipient would see,
   * read without opening the reward, with nothing to pick. Another account's reward is not found.
   */
  async preview(accountId: string, rewardId: string): Promise<RedemptionStateView> {
    const found = await this.lifecycle.findOfAccount(accountId, rewardId);
    if (!found) throw new NotFoundError('Reward');
    const state = await this.state(found);
    return { ...state, reward: { ...state.reward, canPick: false }, brands: [] };
  }

  /** Moves value from the reward into a new card of the recipient's choice (RewardLifecycle.pick). */
  pick(token: string, dto: PickCardDto, idempotencyKey: string | null): Promise<PickOutcome> {
    return this.lifecycle.pick(token, dto, idempotencyKey);
  }

  private async pickableBrands(reward: RedeemableReward): Promise<PickableBrandView[]> {
    const catalog = await this.catalog.load(reward.currency);
    const rules = await this.rules.of(reward.accountId, catalog.revision);
    const allowed = reward.allowedBrandKeys ? new Set(reward.allowedBrandKeys) : null;
    const brands = new Map<string, PickableBrandView>();
    for (const { item, brand } of catalog.items.values()) {
      if ((allowed && !allowed.has(brand.brandKey)) || !rulesAllow(rules, brand.brandKey)) continue;
      let view = brands.get(brand.brandKey);
      if (!view) {
        view = { brandKey: brand.brandKey, name: brand.name, imageUrl: brand.imageUrl, items: [] };
        brands.set(brand.brandKey, view);
      }
      const rule = valueRuleOf(item);
      view.items.push({
        utid: item.utid,
        rewardName: item.rewardName,
        valueType: item.valueType,
        faceValueCents: rule.kind === 'face' ? rule.cents : null,
        minValueCents: rule.kind === 'range' ? rule.minCents : null,
        maxValueCents: rule.kind === 'range' ? rule.maxCents : null,
      });
    }
    return [...brands.values()];
  }
}
