import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AuditLog, AuditOrigin } from '@app/audit';
import type { Principal } from '@app/auth';
import { ApiError, BadRequestError, Clock, fingerprint, IdempotencyStore, InsufficientFundsError } from '@app/core';
import { formatRate, fromAmountFor, FxRates } from '@app/fx';
import { Currencies, WalletLedger } from '@app/wallet';
import type { CreateRewardDto } from './dto/create-reward.dto';
import { BulkResponseDto, BulkResultDto, CreateRewardResponseDto, DryRunRewardResponseDto, toDryRunRewardDto, toRewardDto } from './dto/reward.dto';
import { RewardCatalog } from './reward-catalog';
import { RewardJobs } from './reward-jobs';
import { crossFieldIssues, parseRewardRequest, sourceOf } from './reward-request';
import { PlannedReward, RewardDrafts, WrittenReward, writtenRewards } from './reward-drafts';
import { payingWallet, SendStatements } from './send-statements';
import { creatorOf, dailyLimitError, MidRateCache, SendControls } from './send-controls';

export interface SendOutcome<T> {
  status: number;
  body: T;
  replayed: boolean;
}

/** The rates one request has read, per pair: a bulk reads each pair once. */
type RateCache = Map<string, Promise<bigint>>;

/**
 * Sending rewards: one (POST /v1/rewards) or up to 500 (bulk), each with idempotency and dry run.
 * A send commits as one: the idempotency key, the rewards with their cards, links, e-mail jobs and
 * events, the conversion of a send funded from another wallet, and the hold on the wallet, taken
 * last so the wallet row stays locked the shortest. A single send is one statement; a bulk is one
 * transaction (its affordability walk needs the locks).
 *
 * A reward is in its own currency (docs/currencies.md, Rewards in another currency): a FIXED
 * reward's item's, a CHOICE reward's `currency` or the primary one. Its value is held in that
 * currency's wallet, or, with `fundingCurrency`, converted into it from that wallet at the current
 * rate in the same statement.
 */
@Injectable()
export class RewardSender {
  constructor(
    private readonly dataSource: DataSource,
    private readonly ledger: WalletLedger,
    private readonly currencies: Currencies,
    private readonly rates: FxRates,
    private readonly catalog: RewardCatalog,
    private readonly drafts: RewardDrafts,
    private readonly statements: SendStatements,
    private readonly jobs: RewardJobs,
    private readonly idempotencyKeys: IdempotencyStore,
    private readonly controls: SendControls,
    private readonly clock: Clock,
    private readonly audit: AuditLog,
  ) {}

  async send(
    principal: Principal,
    dto: CreateRewardDto,
    options: { idempotencyKey: string | null; dryRun: boolean; origin?: AuditOrigin },
  ): Promise<SendOutcome<CreateRewardResponseDto | DryRunRewardResponseDto>> {
    const { accountId } = principal;
    const [primary, createdByLabel] = await Promise.all([this.ledger.currencyOf(accountId), this.controls.creatorLabel(principal)]);
    const rules = await this.controls.rulesFor(principal, primary);
    const createdBy = creatorOf(principal);
    const dailyLimit = rules.limits?.dailyLimitCents ?? null;

    // The checks against the clock (deliverAt, expiresAt ahead), then the catalog, the rates and the controls.
    const check = async (): Promise<PlannedReward> => {
      const issues = crossFieldIssues(dto, this.clock.now().getTime());
      if (issues.length) throw new BadRequestError(issues);
      return this.controls.apply(await this.plan(accountId, dto, primary, new Map()), rules, new Map());
    };

    if (options.dryRun) {
      // Every check the send makes, funds included, and the reward it would create; nothing is
      // written and no Idempotency-Key is consumed (docs/rewards.md, Dry run).
      const planned = await check();
      if (dailyLimit !== null) {
        this.controls.checkDaily(rules, await this.controls.spentToday(this.dataSource.manager, principal.credentialId), planned.limitValueCents!);
      }
      const [written] = writtenRewards(this.drafts.prepare({ accountId, source: sourceOf(principal, false), planned: [planned], createdBy, reminds: rules.reminds }));
      const paying = payingWallet(written.view.reward);
      const wallet = await this.ledger.getWallet(accountId, paying.currency);
      if (wallet.availableCents < paying.amountCents) throw insufficientIn(paying.currency);
      return { status: 200, replayed: false, body: { reward: toDryRunRewardDto({ ...written.view, createdByLabel }) } };
    }

    const idempotency = options.idempotencyKey
      ? { scope: accountId, key: options.idempotencyKey, operation: 'rewards.create', requestHash: fingerprint(dto) }
      : null;
    for (let attempt = 1; ; attempt++) {
      let planned: PlannedReward;
      try {
        planned = await check();
      } catch (error) {
        // A retry of a request that succeeded replays it, even if the catalog, the rates or the clock have
        // moved on since (a scheduled send retried after its deliverAt, say).
        const stored = idempotency && error instanceof ApiError ? await this.idempotencyKeys.find(this.dataSource.manager, idempotency) : null;
        if (stored) return { status: 200, body: stored.body as CreateRewardResponseDto, replayed: true };
        throw error;
      }
      const prepared = this.drafts.prepare({ accountId, source: sourceOf(principal, false), planned: [planned], createdBy, reminds: rules.reminds });
      const [written] = writtenRewards(prepared);
      const body: CreateRewardResponseDto = { reward: toRewardDto({ ...written.view, createdByLabel }), redemptionUrl: written.redemptionUrl };
      const { reward } = written.view;
      const audit = options.origin
        ? await this.audit.prepare({
            accountId,
            origin: options.origin,
            action: 'reward.created',
            targetType: 'reward',
            targetId: reward.id,
            metadata: createdMetadata(reward),
          })
        : null;

      const { sql, params } = this.statements.single({
        prepared,
        catalogRevision: planned.revision,
        idempotency: idempotency && { input: idempotency, response: { status: 201, body } },
        audit,
      });
      const run = (query: (sql: string, params: unknown[]) => Promise<unknown>) =>
        query(sql, params).catch((error: unknown) => {
          throw this.ledger.insufficientFundsOr(error, payingWallet(written.view.reward).currency);
        }) as Promise<{ fresh: boolean; done: boolean }[]>;
      let outcome: { fresh: boolean; done: boolean };
      if (dailyLimit === null) {
        [outcome] = await run((text, values) => this.dataSource.query(text, values));
      } else {
        // A key with a daily limit: its row is locked, its last 24 hours summed and the send written
        // in one transaction (docs/controls.md, Key limits).
        const limited = await this.dataSource.transaction(
          async (manager): Promise<{ replay: CreateRewardResponseDto } | { row: { fresh: boolean; done: boolean } }> => {
            const spent = await this.controls.lockKeySpend(manager, principal.credentialId);
            if (spent + planned.limitValueCents! > dailyLimit) {
              // A retry of a send that went through replays it, even once the limit is reached.
              const stored = idempotency ? await this.idempotencyKeys.find(manager, idempotency) : null;
              if (stored) return { replay: stored.body as CreateRewardResponseDto };
              throw dailyLimitError(primary, dailyLimit, spent, planned.limitValueCents!);
            }
            const [row] = await run((text, values) => manager.query(text, values));
            return { row };
          },
        );
        if ('replay' in limited) return { status: 200, body: limited.replay, replayed: true };
        outcome = limited.row;
      }

      if (outcome.done) {
        await this.enqueue([written]);
        return { status: 201, body, replayed: false };
      }
      if (outcome.fresh) {
        // The key was taken by an earlier request (or one that committed while this one waited).
        const stored = await this.idempotencyKeys.stored(this.dataSource.manager, idempotency!);
        return { status: 200, body: stored.body as CreateRewardResponseDto, replayed: true };
      }
      // A catalog sync landed since the catalog was loaded: check again against the new one.
      this.catalog.forgetAll();
      if (attempt >= 3) throw new Error('the catalog changed during three attempts to send one reward');
    }
  }

  async sendBulk(
    principal: Principal,
    items: unknown[],
    options: { idempotencyKey: string | null; dryRun: boolean; origin?: AuditOrigin },
  ): Promise<SendOutcome<BulkResponseDto>> {
    const { accountId } = principal;
    const primary = await this.ledger.currencyOf(accountId);
    const rules = await this.controls.rulesFor(principal, primary);
    const dailyLimit = rules.limits?.dailyLimitCents ?? null;
    // Items are checked on their own: an invalid one fails with its own error and the rest go on.
    const parsed = await Promise.all(items.map((item) => parseRewardRequest(item, this.clock.now().getTime()).catch((error: unknown) => error)));
    const rates: RateCache = new Map();
    const midRates: MidRateCache = new Map();
    const planned: (PlannedReward | ApiError)[] = [];
    for (const item of parsed) {
      planned.push(
        item instanceof Error
          ? asApiError(item)
          : await this.plan(accountId, item as CreateRewardDto, primary, rates)
              .then((checked) => this.controls.apply(checked, rules, midRates))
              .catch(asApiError),
      );
    }
    const outcome = await this.dataSource.transaction(async (manager) => {
      const claim =
        options.idempotencyKey && !options.dryRun
          ? await this.idempotencyKeys.claim(manager, {
              scope: accountId,
              key: options.idempotencyKey,
              operation: 'rewards.bulk',
              requestHash: fingerprint(items),
            })
          : null;
      if (claim?.kind === 'replay') return { replay: claim.response };

      // A key with a daily limit: locked before the wallets (the order a single send takes them in),
      // and each item counted against what is left of it, one by one (docs/controls.md, Key limits).
      let spent = dailyLimit === null ? 0 : await (options.dryRun ? this.controls.spentToday(manager, principal.credentialId) : this.controls.lockKeySpend(manager, principal.credentialId));
      for (let i = 0; i < planned.length; i++) {
        const entry = planned[i];
        if (dailyLimit === null || entry instanceof ApiError) continue;
        if (spent + entry.limitValueCents! > dailyLimit) planned[i] = dailyLimitError(primary, dailyLimit, spent, entry.limitValueCents!);
        else spent += entry.limitValueCents!;
      }

      // Every wallet the items would move is locked for the whole transaction, in currency order
      // (the order the ledger applies a statement's rows in: docs/wallet-ledger.md), so the
      // affordability walk below cannot be overtaken and no other send or conversion can hold one
      // of them while waiting for another this bulk holds.
      const paying = planned.map((entry) => (entry instanceof ApiError ? null : payingOf(entry)));
      const touched = planned.flatMap((entry) => (entry instanceof ApiError ? [] : [entry.currency, ...(entry.fx ? [entry.fx.fundingCurrency] : [])]));
      const available = new Map<string, number>();
      for (const currency of [...new Set(touched)].sort()) {
        available.set(currency, (await this.ledger.lockForUpdate(manager, accountId, currency)).availableCents);
      }
      let exhausted = false;
      const accepted: { index: number; planned: PlannedReward }[] = [];
      const results: BulkResultDto[] = planned.map((entry, index) => {
        if (exhausted) return failed(index, 'skipped: insufficient_funds');
        if (entry instanceof ApiError) return failed(index, `${entry.code}: ${entry.message}`);
        const { currency, amountCents } = paying[index]!;
        const left = available.get(currency)!;
        if (amountCents > left) {
          exhausted = true;
          return failed(index, 'skipped: insufficient_funds');
        }
        available.set(currency, left - amountCents);
        accepted.push({ index, planned: entry });
        return { index, ok: true, rewardId: null, error: null };
      });

      let written: WrittenReward[] = [];
      if (!options.dryRun && accepted.length > 0) {
        const prepared = this.drafts.prepare({
          accountId,
          source: sourceOf(principal, true),
          planned: accepted.map((a) => a.planned),
          createdBy: creatorOf(principal),
          reminds: rules.reminds,
        });
        const { sql, params } = this.statements.bulk(prepared);
        await manager.query(sql, params).catch((error: unknown) => {
          throw this.ledger.insufficientFundsOr(error);
        });
        written = writtenRewards(prepared);
        accepted.forEach((a, i) => (results[a.index].rewardId = written[i].view.reward.id));
        // One entry for the whole request, with its count and value per currency (docs/audit-log.md).
        if (options.origin) {
          const valueCents: Record<string, number> = {};
          for (const { view } of written) valueCents[view.reward.currency] = (valueCents[view.reward.currency] ?? 0) + view.reward.faceValueCents;
          await this.audit.record(manager, {
            accountId,
            origin: options.origin,
            action: 'reward.created',
            targetType: null,
            targetId: null,
            metadata: { bulk: true, count: written.length, failed: results.length - written.length, valueCents, source: sourceOf(principal, true) },
          });
        }
      }
      const sent = results.filter((r) => r.ok).length;
      const body: BulkResponseDto = { dryRun: options.dryRun, sent, failed: results.length - sent, results };
      // Only created rewards are stored against a key (docs/idempotency.md); a bulk that created none
      // can be retried with the same key once the items or the wallet are fixed.
      if (claim?.kind === 'owner') await (sent > 0 ? claim.complete(207, body) : claim.release());
      return { written, body };
    });

    if ('replay' in outcome) return { status: 207, body: outcome.replay!.body as BulkResponseDto, replayed: true };
    await this.enqueue(outcome.written);
    return { status: 207, body: outcome.body, replayed: false };
  }

  /**
   * Checks a send and works out its currency and funding: the currencies named must be ones the
   * account may hold (400), the catalog must fulfil it (422), a `fundingCurrency` must differ from
   * the reward's currency (400) and the rates must be fresh (503). A send without `currency` or
   * `fundingCurrency` costs what it cost before rewards in any currency: the catalog check only.
   */
  private async plan(accountId: string, dto: CreateRewardDto, primary: string, rates: RateCache): Promise<PlannedReward> {
    if (dto.currency !== undefined && dto.currency !== primary) await this.currencies.check(accountId, dto.currency, 'currency');
    if (dto.fundingCurrency !== undefined) {
      await this.currencies.check(accountId, dto.fundingCurrency, 'fundingCurrency');
      // A CHOICE reward's currency is known before the catalog is asked; a FIXED one's is its item's.
      if (dto.type === 'CHOICE') refuseSameFunding(dto.fundingCurrency, dto.currency ?? primary);
    }
    const checked = await this.catalog.check(accountId, dto, primary);
    if (dto.fundingCurrency === undefined) return { ...checked, fx: null };
    refuseSameFunding(dto.fundingCurrency, checked.currency);
    const pair = `${dto.fundingCurrency}>${checked.currency}`;
    let rate = rates.get(pair);
    if (!rate) {
      rate = this.rates.current(dto.fundingCurrency, checked.currency).then((r) => r.rate);
      rates.set(pair, rate);
    }
    const applied = await rate;
    return {
      ...checked,
      fx: { fundingCurrency: dto.fundingCurrency, rate: formatRate(applied), fundedCents: fromAmountFor(dto.valueCents, applied) },
    };
  }

  private enqueue(written: WrittenReward[]): Promise<void> {
    return this.jobs.enqueue({
      cardIds: written.flatMap((w) => w.cardIds),
      mailJobIds: written.flatMap((w) => [w.mailJobId, w.smsJobId].filter((id): id is string => id !== null)),
    });
  }
}

/** What the audit log keeps of a single send: enough to recognise it without opening the reward. */
function createdMetadata(reward: { faceValueCents: number; currency: string; recipientEmail: string; type: string; source: string }) {
  return { valueCents: reward.faceValueCents, currency: reward.currency, recipientEmail: reward.recipientEmail, type: reward.type, source: reward.source };
}

/** `fundingCurrency` must name another wallet than the reward's own (400). */
function refuseSameFunding(fundingCurrency: string, currency: string): void {
  if (fundingCurrency !== currency) return;
  throw new BadRequestError([
    { path: 'fundingCurrency', message: `must be another currency than the reward's (${currency}); leave it out to hold the value from the ${currency} wallet` },
  ]);
}

/** The wallet a planned send takes from, and how much: the funding one, or the reward currency's. */
function payingOf(planned: PlannedReward): { currency: string; amountCents: number } {
  return planned.fx ? { currency: planned.fx.fundingCurrency, amountCents: planned.fx.fundedCents } : { currency: planned.currency, amountCents: planned.dto.valueCents };
}

function insufficientIn(currency: string): InsufficientFundsError {
  return new InsufficientFundsError(`The ${currency} wallet balance is too low for this request.`);
}

function failed(index: number, error: string): BulkResultDto {
  return { index, ok: false, rewardId: null, error };
}

function asApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  throw error;
}
