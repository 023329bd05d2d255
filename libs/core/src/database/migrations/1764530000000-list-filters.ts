import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Indexes for the list filters of docs/pagination.md (Filters): a creation range on rewards and
 * wallet transactions, a campaign on rewards, and a related id on wallet transactions (also a
 * reward's money trail, docs/rewards.md).
 *
 * - `(account_id, created_at)` places a range; its INCLUDE columns let the total of a range with a
 *   type, currency, campaign, status or kind filter be counted from the index alone, without
 *   visiting the rows.
 * - `(account_id, campaign, seq DESC)` (only rewards with a campaign) pages a campaign newest first.
 * - `(account_id, related_id, seq)` finds the movements of a reward and its cards, oldest first.
 *
 * Type, currency and kind have a handful of values each: a page filtered by them alone walks the
 * seq index, and gets no index of its own that every send would have to write.
 */
export class ListFilters1764530000000 implements MigrationInterface {
  name = 'ListFilters1764530000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE INDEX rewards_account_created_idx ON rewards (account_id, created_at) INCLUDE (status, type, currency, campaign)`);
    await db.query(`CREATE INDEX rewards_account_campaign_idx ON rewards (account_id, campaign, seq DESC) WHERE campaign IS NOT NULL`);
    await db.query(`CREATE INDEX wallet_transactions_account_created_idx ON wallet_transactions (account_id, created_at) INCLUDE (kind, currency)`);
    await db.query(`CREATE INDEX wallet_transactions_account_related_idx ON wallet_transactions (account_id, related_id, seq)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP INDEX wallet_transactions_account_related_idx`);
    await db.query(`DROP INDEX wallet_transactions_account_created_idx`);
    await db.query(`DROP INDEX rewards_account_campaign_idx`);
    await db.query(`DROP INDEX rewards_account_created_idx`);
  }
}
