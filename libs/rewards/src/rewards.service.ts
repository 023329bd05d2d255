import { Inject, Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import type { AuditOrigin } from '@app/audit';
import { APP_CONFIG, AppConfig, ListWindow, NotFoundError, queryRows, readListPage, readListTotals, ReadRouting, readSnapshot } from '@app/core';
import { WalletLedger } from '@app/wallet';
import type { WalletTransactionDto } from '@app/wallet';
import type { RewardView } from './dto/reward.dto';
import { OPEN_REWARD_STATUSES, RewardEntity } from './entities/reward.entity';
import { RewardLifecycle } from './lifecycle/reward-lifecycle.service';
import { RewardRepository } from './lifecycle/reward.repository';
import { redemptionUrl } from './reward-drafts';

export interface RewardStats {
  totalRewards: number;
  activeRewards: number;
  redeemedRewards: number;
  totalIssuedCents: number;
}

/** The filters of `GET /v1/rewards` (docs/pagination.md, Filters). */
export interface RewardListFilter {
  status?: string;
  externalId?: string;
  type?: string;
  campaign?: string;
  currency?: string;
  created?: { gte: Date; lt: Date };
  /** A case-insensitive prefix of the recipient's e-mail, first or last name (docs/rewards.md, Finding a reward). */
  recipient?: string;
  /** The id of who sent it (`createdBy.id`). */
  createdBy?: string;
}

/** The list's orders (docs/pagination.md, Sorting); `-` is descending. */
export type RewardListSort = '-createdAt' | 'createdAt' | '-faceValueCents' | 'faceValueCents';

/** `pre%` for LIKE, with LIKE's own characters in the prefix taken literally. */
function likePrefix(text: string): string {
  return `${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * Up to this many rewards match a recipient prefix, the page reads them all through the prefix
 * indexes and sorts them; more, and it walks the list's own order and keeps the matches, which are
 * then dense enough to fill a page soon (docs/pagination.md, Filters).
 */
export const SPARSE_RECIPIENT_MATCHES = 2_000;

/** A recipient prefix over alias `alias`: one index range per column (the reward_search migration). */
const recipientMatch = (alias: string) =>
  `(lower(${alias}.recipient_email) LIKE :recipientPrefix OR lower(${alias}.recipient_first_name) LIKE :recipientPrefix ` +
  `OR (${alias}.recipient_last_name IS NOT NULL AND lower(${alias}.recipient_last_name) LIKE :recipientPrefix))`;

/**
 * The ids a recipient prefix matches, one index range scan per column, joined with `union` (UNION,
 * or UNION ALL where duplicates do not matter). Not the three ORed conditions: those need a bitmap
 * scan to use the three indexes, and list reads run with bitmap scans off (readSnapshot), which left
 * the ORed form walking the whole account.
 */
const recipientMatchIds = (accountId: string, prefix: string, union: 'UNION' | 'UNION ALL') =>
  [
    `SELECT m.id FROM rewards m WHERE m.account_id = ${accountId} AND lower(m.recipient_email) LIKE ${prefix}`,
    `SELECT m.id FROM rewards m WHERE m.account_id = ${accountId} AND lower(m.recipient_first_name) LIKE ${prefix}`,
    `SELECT m.id FROM rewards m WHERE m.account_id = ${accountId} AND m.recipient_last_name IS NOT NULL AND lower(m.recipient_last_name) LIKE ${prefix}`,
  ].join(` ${union} `);

/**
 * The list's extra condition for a recipient prefix. PostgreSQL cannot tell how many rows three
 * ORed prefixes match, and guesses a few hundred: for a rare prefix it would walk the whole
 * account newest first looking for them. So a `sparse` prefix (few matches, counted first) names its
 * rows by id, read through the three indexes, and the page sorts those; a common one is a plain
 * condition, met often enough along the list's order.
 */
function recipientCondition(prefix: string, sparse: boolean) {
  return {
    sql: (alias: string) =>
      sparse ? `${alias}.id = ANY(ARRAY(${recipientMatchIds(':accountId', ':recipientPrefix', 'UNION')}))` : recipientMatch(alias),
    params: { recipientPrefix: likePrefix(prefix) },
  };
}

/**
 * A reward's money trail (docs/rewards.md, Money trail): every ledger row of the reward and of its
 * cards, oldest first, and their totals. heldCents = capturedCents + releasedCents +
 * remainingValueCents + the value of its PENDING cards.
 */
export interface RewardLedger {
  transactions: WalletTransactionDto[];
  heldCents: number;
  capturedCents: number;
  releasedCents: number;
  convertedCents: number;
}

/** The merchant's view of rewards: reading them, and the transitions a merchant asks for (through RewardLifecycle). */
@Injectable()
export class RewardsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly repository: RewardRepository,
    private readonly lifecycle: RewardLifecycle,
    private readonly wallet: WalletLedger,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly reads: ReadRouting,
  ) {}

  /** The reward's one redemption link, as the create response gave it (docs/redemption.md, One link). */
  async redemptionUrl(reward: Pick<RewardEntity, 'id' | 'accountId'>): Promise<string> {
    return redemptionUrl(this.config.publicBaseUrl, await this.lifecycle.redemptionToken(reward));
  }

  /**
   * 404 for unknown ids and for other accounts' rewards alike. The reward, its cards and its
   * timeline are read in one snapshot, so they show one committed state (docs/pagination.md, One snapshot).
   */
  async get(accountId: string, id: string, manager?: EntityManager): Promise<RewardView> {
    const read = async (m: EntityManager) => {
      const view = await this.repository.view(m, id, accountId);
      if (!view) throw new NotFoundError('Reward');
      return view;
    };
    return manager ? read(manager) : readSnapshot(this.dataSource, read);
  }

  /**
   * A page of rewards, newest first, with cards, timelines and total from one snapshot
   * (docs/pagination.md). The total is the kept count with no filter or a status one; any other
   * filter (external id, type, campaign, currency, a creation range, recipient, sender) counts its
   * matches. `sort` orders by creation (seq) or face value, either way (docs/pagination.md, Sorting).
   */
  async list(accountId: string, filters: RewardListFilter, window: ListWindow, sort: RewardListSort = '-createdAt') {
    const { status, externalId, type, campaign, currency, created, recipient, createdBy } = filters;
    const kept = [externalId, type, campaign, currency, created, recipient, createdBy].every((filter) => filter === undefined);
    const ascending = !sort.startsWith('-');
    // From the read replica when one serves (docs/scaling.md, Read replica).
    return this.reads.snapshot(async (manager) => {
      let sparse = false;
      if (recipient !== undefined) {
        // How many rewards of the account the prefix matches, counted no further than the threshold. A reward
        // matches in up to three columns, so three times the threshold of matches, deduplicated, decide.
        const [row] = await queryRows<{ n: number }>(
          manager,
          `SELECT count(DISTINCT found.id)::int AS n FROM (${recipientMatchIds('$1', '$2', 'UNION ALL')} LIMIT $3) AS found`,
          [accountId, likePrefix(recipient), 3 * (SPARSE_RECIPIENT_MATCHES + 1)],
        );
        sparse = row.n <= SPARSE_RECIPIENT_MATCHES;
      }
      const page = await readListPage(
        manager,
        {
          entity: RewardEntity,
          accountId,
          filters: { status, external_id: externalId, type, campaign, currency, created_by_id: createdBy },
          created,
          where: recipient === undefined ? undefined : recipientCondition(recipient, sparse),
          countedAs: !kept ? null : status ? `rewards:${status}` : 'rewards',
          order: 'seq',
          sort: sort === '-createdAt' ? undefined : { column: sort.endsWith('faceValueCents') ? 'face_value_cents' : null, ascending },
        },
        window,
        this.repository.pageOfViews,
      );
      return { views: page.items, total: page.total, hasMore: page.hasMore };
    });
  }

  /**
   * The reward's money trail: the reward and its cards read by rewards, their ledger rows by the
   * wallet, in one snapshot so the rows and the reward agree. 404 as `get`.
   */
  async ledger(accountId: string, id: string): Promise<RewardLedger> {
    return readSnapshot(this.dataSource, async (manager) => {
      const { reward, cards } = await this.get(accountId, id, manager);
      const transactions = await this.wallet.transactionsOf(manager, accountId, [reward.id, ...cards.map((card) => card.id)]);
      const sum = (kind: string) => transactions.filter((tx) => tx.kind === kind).reduce((total, tx) => total + Math.abs(tx.reservedDeltaCents), 0);
      return {
        transactions,
        heldCents: sum('HOLD'),
        capturedCents: sum('CAPTURE'),
        releasedCents: sum('RELEASE'),
        convertedCents: transactions.filter((tx) => tx.kind === 'CONVERSION_IN').reduce((total, tx) => total + tx.availableDeltaCents, 0),
      };
    });
  }

  /** Cancels an open reward (the rules are RewardLifecycle.cancel's); the audit log records who did it. */
  async cancel(accountId: string, id: string, origin: AuditOrigin): Promise<RewardView> {
    await this.lifecycle.cancel(accountId, id, origin);
    return this.get(accountId, id);
  }

  /** Corrects the recipient's address and e-mails it again (RewardLifecycle.correctRecipient's rules). */
  async correctRecipient(accountId: string, id: string, email: string, origin: AuditOrigin): Promise<RewardView> {
    await this.lifecycle.correctRecipient(accountId, id, email, origin);
    return this.get(accountId, id);
  }

  /** Queues the recipient e-mail again, in any state; the audit log records who asked. */
  async resend(accountId: string, id: string, origin: AuditOrigin): Promise<RewardView> {
    await this.lifecycle.resend(accountId, id, origin);
    return this.get(accountId, id);
  }

  /**
   * The face value of the rewards sent on each of the `days` UTC days ending with `today`, in each
   * of `currencies`, oldest day first, from the kept per-day sums (docs/dashboard.md, Overview
   * chart): one read of at most days × currencies count rows, whatever the account's volume.
   */
  async sentPerDay(accountId: string, currencies: string[], days: number, today: Date): Promise<{ currency: string; days: { date: string; sentCents: number }[] }[]> {
    const end = Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate());
    const dates = Array.from({ length: days }, (_, i) => new Date(end - (days - 1 - i) * 86_400_000).toISOString().slice(0, 10));
    const list = (currency: string, date: string) => `sent_cents:${currency}:${date}`;
    const totals = await this.reads.read((manager) => readListTotals(manager, accountId, currencies.flatMap((currency) => dates.map((date) => list(currency, date)))));
    return currencies.map((currency) => ({ currency, days: dates.map((date) => ({ date, sentCents: totals[list(currency, date)] })) }));
  }

  /** From the kept counts (docs/pagination.md, Totals): the same cost at a thousand rewards as at a million. */
  async stats(accountId: string): Promise<RewardStats> {
    const open = OPEN_REWARD_STATUSES.map((status) => `rewards:${status}`);
    const totals = await readListTotals(this.dataSource.manager, accountId, ['rewards', 'rewards:REDEEMED', 'issued_cents', ...open]);
    return {
      totalRewards: totals.rewards,
      activeRewards: open.reduce((sum, list) => sum + totals[list], 0),
      redeemedRewards: totals['rewards:REDEEMED'],
      totalIssuedCents: totals.issued_cents,
    };
  }
}
