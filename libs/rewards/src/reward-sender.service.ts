import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Principal } from '@app/auth';
import {
  ApiError,
  BadRequestError,
  fingerprint,
  IdempotencyStore,
  InsufficientFundsError,
} from '@app/core';
import { WalletLedger } from '@app/wallet';
import type { CreateRewardDto } from './dto/create-reward.dto';
import { BulkResponseDto, BulkResultDto, CreateRewardResponseDto, DryRunRewardResponseDto, toRewardDto } from './dto/reward.dto';
import { CheckedReward, RewardCatalog } from './reward-catalog';
import { RewardJobs } from './reward-jobs';
import { crossFieldIssues, parseRewardRequest, sourceOf } from './reward-request';
import { RewardDrafts, WrittenReward, writtenRewards } from './reward-drafts';
import { SendStatements } from './send-statements';

export interface SendOutcome<T> {
  status: number;
  body: T;
  replayed: boolean;
}

/**
 * Sending rewards: one (POST /v1/rewards) or up to 500 (bulk), each with idempotency and dry run.
 * A send commits as one: the idempotency key, the rewards with their cards, links, e-mail jobs and
 * events, and the hold on the wallet, taken last so the wallet row stays locked the shortest. A
 * single send is one statement; a bulk is one transaction (its affordability walk needs the lock).
 */
@Injectable()
export class RewardSender {
  constructor(
    private readonly dataSource: DataSource,
    private readonly ledger: WalletLedger,
    private readonly catalog: RewardCatalog,
    private readonly drafts: RewardDrafts,
    private readonly statements: SendStatements,
    private readonly jobs: RewardJobs,
    private readonly idempotencyKeys: IdempotencyStore,
  ) {}

  async send(
    principal: Principal,
    dto: CreateRewardDto,
    options: { idempotencyKey: string | null; dryRun: boolean },
  ): Promise<SendOutcome<CreateRewardResponseDto | DryRunRewardResponseDto>> {
    const issues = crossFieldIssues(dto);
    if (issues.length) throw new BadRequestError(issues);

    if (options.dryRun) {
      const wallet = await this.ledger.getWallet(principal.accountId);
      const { currency } = wallet;
      await this.catalog.check(principal.accountId, dto, currency, await this.catalog.load(currency));
      if (wallet.availableCents < dto.valueCents) throw new InsufficientFundsError();
      return {
        status: 200,
        replayed: false,
        body: { dryRun: true, ok: true, holdCents: dto.valueCents, currency, walletAvailableCents: wallet.availableCents },
      };
    }

    const currency = await this.ledger.currencyOf(principal.accountId);
    const idempotency = options.idempotencyKey
      ? { scope: principal.accountId, key: options.idempotencyKey, operation: 'rewards.create', requestHash: fingerprint(dto) }
      : null;
    for (let attempt = 1; ; attempt++) {
      const catalog = await this.catalog.current(currency);
      let checked: CheckedReward;
      try {
        checked = await this.catalog.check(principal.accountId, dto, currency, catalog);
      } catch (error) {
        // A retry of a request that succeeded replays it, even if the catalog has changed since.
        const stored = idempotency && error instanceof ApiError ? await this.idempotencyKeys.find(this.dataSource.manager, idempotency) : null;
        if (stored) return { status: 200, body: stored.body as CreateRewardResponseDto, replayed: true };
        throw error;
      }
      const prepared = this.drafts.prepare({ accountId: principal.accountId, currency, source: sourceOf(principal, false), checked: [checked] });
      const [written] = writtenRewards(prepared);
      const body: CreateRewardResponseDto = { reward: toRewardDto(written.view), redemptionUrl: written.redemptionUrl };

      const { sql, params } = this.statements.single({
        prepared,
        catalogRevision: catalog.revision,
        idempotency: idempotency && { input: idempotency, response: { status: 201, body } },
      });
      const [outcome] = (await this.dataSource.query(sql, params).catch((error: unknown) => {
        throw this.ledger.insufficientFundsOr(error);
      })) as { fresh: boolean; done: boolean }[];

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
      this.catalog.forget(currency);
      if (attempt >= 3) throw new Error('the catalog changed during three attempts to send one reward');
    }
  }

  async sendBulk(
    principal: Principal,
    items: unknown[],
    options: { idempotencyKey: string | null; dryRun: boolean },
  ): Promise<SendOutcome<BulkResponseDto>> {
    const { currency } = await this.ledger.getWallet(principal.accountId);
    // Items are checked on their own: an invalid one fails with its own error and the rest go on.
    const parsed = await Promise.all(items.map((item) => parseRewardRequest(item).catch((error: unknown) => error)));
    const catalog = await this.catalog.load(currency);
    const checked: (CheckedReward | ApiError)[] = [];
    for (const item of parsed) {
      checked.push(
        item instanceof Error ? asApiError(item) : await this.catalog.check(principal.accountId, item as CreateRewardDto, currency, catalog).catch(asApiError),
      );
    }

    const outcome = await this.dataSource.transaction(async (manager) => {
      const claim =
        options.idempotencyKey && !options.dryRun
          ? await this.idempotencyKeys.claim(manager, {
              scope: principal.accountId,
              key: options.idempotencyKey,
              operation: 'rewards.bulk',
              requestHash: fingerprint(items),
            })
          : null;
      if (claim?.kind === 'replay') return { replay: claim.response };

      // Locked for the whole transaction: the affordability walk below cannot be overtaken.
      const wallet = await this.ledger.lockForUpdate(manager, principal.accountId);
      let available = wallet.availableCents;
      let exhausted = false;
      const accepted: { index: number; checked: CheckedReward }[] = [];
      const results: BulkResultDto[] = checked.map((entry, index) => {
        if (exhausted) return failed(index, 'skipped: insufficient_funds');
        if (entry instanceof ApiError) return failed(index, `${entry.code}: ${entry.message}`);
        if (entry.dto.valueCents > available) {
          exhausted = true;
          return failed(index, 'skipped: insufficient_funds');
        }
        available -= entry.dto.valueCents;
        accepted.push({ index, checked: entry });
        return { index, ok: true, rewardId: null, error: null };
      });

      let written: WrittenReward[] = [];
      if (!options.dryRun && accepted.length > 0) {
        const prepared = this.drafts.prepare({
          accountId: principal.accountId,
          currency,
          source: sourceOf(principal, true),
          checked: accepted.map((a) => a.checked),
        });
        const { sql, params } = this.statements.bulk(prepared);
        await manager.query(sql, params).catch((error: unknown) => {
          throw this.ledger.insufficientFundsOr(error);
        });
        written = writtenRewards(prepared);
        accepted.forEach((a, i) => (results[a.index].rewardId = written[i].view.reward.id));
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

  private enqueue(written: WrittenReward[]): Promise<void> {
    return this.jobs.enqueue({ cardIds: written.flatMap((w) => w.cardIds), mailJobIds: written.map((w) => w.mailJobId) });
  }
}

function failed(index: number, error: string): BulkResultDto {
  return { index, ok: false, rewardId: null, error };
}

function asApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  throw error;
}
