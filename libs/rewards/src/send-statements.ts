import { Injectable } from '@nestjs/common';
import { AuditLog, PreparedAuditEntry } from '@app/audit';
import { Condition, IdempotencyInput, IdempotencyStore, Statement, StoredResponse } from '@app/core';
import { ConversionEntry, LedgerEntry, WalletLedger } from '@app/wallet';
import type { RewardEntity } from './entities/reward.entity';
import { RewardRepository } from './lifecycle/reward.repository';
import type { PreparedRewards } from './reward-drafts';

/** A statement ready to run: its text and its parameters. */
export interface RenderedStatement {
  sql: string;
  params: unknown[];
}

/**
 * The statements that write sends. Their rendered SQL is committed under libs/rewards/sql (see
 * `npm run sql:golden`), so a change to what a send writes shows in review as SQL.
 */
@Injectable()
export class SendStatements {
  constructor(
    private readonly rewards: RewardRepository,
    private readonly ledger: WalletLedger,
    private readonly idempotencyKeys: IdempotencyStore,
    private readonly audit: AuditLog,
  ) {}

  /**
   * A single send as one statement, so one implicit transaction and one round trip: nothing is
   * written unless the catalog checked against is still current and the key (if any) is this
   * request's; the hold goes last, and too little money fails the statement as a whole. The wallet
   * row is locked only while PostgreSQL runs it, never across a round trip. Its one row says
   * whether the catalog was `fresh` and whether the send was `done`.
   */
  single(input: {
    prepared: PreparedRewards;
    catalogRevision: number;
    idempotency: { input: IdempotencyInput; response: StoredResponse } | null;
    /** The send's `reward.created` entry (docs/audit-log.md), written with the reward. */
    audit?: PreparedAuditEntry | null;
  }): RenderedStatement {
    const [reward] = input.prepared.rewards.map((w) => w.view.reward);
    const statement = new Statement();
    const freshCatalog = statement.with(
      'fresh_catalog',
      `SELECT 1 FROM catalog_state WHERE id = 1 AND revision = ${statement.param(input.catalogRevision)}`,
    );
    let go = Condition.exists(freshCatalog);
    if (input.idempotency) {
      go = Condition.exists(this.idempotencyKeys.claimIn(statement, input.idempotency.input, input.idempotency.response, { onlyIf: go }));
    }
    this.rewards.insertNewIn(statement, input.prepared, { onlyIf: go });
    if (input.audit) this.audit.insertIn(statement, input.audit, { onlyIf: go });
    // Funded from another wallet: the value converted into the reward currency's wallet first, in
    // this statement, so the hold below takes it at once (docs/currencies.md).
    const conversion = conversionOf(reward);
    if (conversion) this.ledger.convertIn(statement, conversion, { onlyIf: go });
    this.ledger.holdIn(statement, holdOf(reward), { onlyIf: go });
    return {
      sql: statement.text(`SELECT ${Condition.exists(freshCatalog)} AS fresh, ${statement.condition(go)} AS done`),
      params: statement.params,
    };
  }

  /**
   * A bulk send's writes, with the holds of every reward, as one statement. It runs in the bulk's
   * transaction, after the wallet row was locked and the rewards found affordable.
   */
  bulk(prepared: PreparedRewards): RenderedStatement {
    const statement = new Statement();
    this.rewards.insertNewIn(statement, prepared);
    const rewards = prepared.rewards.map(({ view }) => view.reward);
    const conversions = rewards.map(conversionOf).filter((c) => c !== null);
    if (conversions.length > 0) this.ledger.convertEachIn(statement, conversions);
    // One hold per reward, grouped by the wallet it is held in (each reward's own currency).
    for (const currency of [...new Set(rewards.map((r) => r.currency))].sort()) {
      const holds = rewards.filter((r) => r.currency === currency).map(holdOf);
      this.ledger.holdManyIn(statement, prepared.accountId, holds, { currency });
    }
    return { sql: statement.text('SELECT 1'), params: statement.params };
  }
}

/** The hold of a new reward's value, in the wallet of its own currency. */
function holdOf(reward: RewardEntity): LedgerEntry {
  return {
    accountId: reward.accountId,
    currency: reward.currency,
    amountCents: reward.faceValueCents,
    relatedType: 'reward',
    relatedId: reward.id,
    description: `Reward ${reward.id}`,
  };
}

/** The conversion a reward funded from another wallet makes: `fxFundedCents` of it for the reward's whole value. */
function conversionOf(reward: RewardEntity): ConversionEntry | null {
  if (reward.fxFundingCurrency === null || reward.fxFundedCents === null) return null;
  return {
    accountId: reward.accountId,
    fromCurrency: reward.fxFundingCurrency,
    toCurrency: reward.currency,
    fromAmountCents: reward.fxFundedCents,
    toAmountCents: reward.faceValueCents,
    relatedType: 'reward',
    relatedId: reward.id,
    description: `Reward ${reward.id}: ${reward.fxFundingCurrency} to ${reward.currency} at ${reward.fxRate}`,
  };
}

/** The wallet whose balance decides whether a send is affordable: the funding one, or the reward currency's. */
export function payingWallet(reward: Pick<RewardEntity, 'currency' | 'faceValueCents' | 'fxFundingCurrency' | 'fxFundedCents'>): {
  currency: string;
  amountCents: number;
} {
  return reward.fxFundingCurrency !== null && reward.fxFundedCents !== null
    ? { currency: reward.fxFundingCurrency, amountCents: reward.fxFundedCents }
    : { currency: reward.currency, amountCents: reward.faceValueCents };
}
