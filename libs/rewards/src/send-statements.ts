import { Injectable } from '@nestjs/common';
import { Condition, IdempotencyInput, IdempotencyStore, Statement, StoredResponse } from '@app/core';
import { WalletLedger } from '@app/wallet';
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
    this.ledger.holdIn(
      statement,
      {
        accountId: reward.accountId,
        amountCents: reward.faceValueCents,
        relatedType: 'reward',
        relatedId: reward.id,
        description: `Reward ${reward.id}`,
      },
      { onlyIf: go },
    );
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
    this.ledger.holdManyIn(
      statement,
      prepared.accountId,
      prepared.rewards.map(({ view: { reward } }) => ({
        amountCents: reward.faceValueCents,
        relatedType: 'reward' as const,
        relatedId: reward.id,
        description: `Reward ${reward.id}`,
      })),
    );
    return { sql: statement.text('SELECT 1'), params: statement.params };
  }
}
