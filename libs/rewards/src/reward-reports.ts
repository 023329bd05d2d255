import { Injectable } from '@nestjs/common';
import { In } from 'typeorm';
import { DateRange, listFiltersAsQuery, readListBatches, Reader, reportDateRange } from '@app/core';
import { ListRewardsQueryDto } from './dto/reward-query.dto';
import { RewardCardEntity } from './entities/reward-card.entity';
import { RewardEntity } from './entities/reward.entity';
import type { RewardListFilter } from './rewards.service';

/** The filters `GET /v1/rewards` takes (its query, less paging): a rewards or cards report takes the same (docs/reports.md). */
export const REWARD_FILTER_FIELDS = ['status', 'external_id', 'type', 'campaign', 'currency', 'created_gte', 'created_lt'] as const;

/** `GET /v1/rewards`' query as the list's filter: one reading for the list and for reports. */
export function rewardListFilterOf(query: Omit<ListRewardsQueryDto, 'page' | 'page_size'>, created: DateRange | undefined): RewardListFilter {
  return {
    status: query.status,
    externalId: query.external_id,
    type: query.type,
    campaign: query.campaign,
    currency: query.currency,
    created,
    recipient: query.recipient,
    createdBy: query.created_by,
  };
}

/**
 * A report's columns: the API fields of a reward (`GET /v1/rewards/{id}`) in API order, with `fx`
 * spread into three columns and the nested lists left out (docs/reports.md, Columns).
 */
export const REWARD_REPORT_COLUMNS = [
  'id',
  'type',
  'status',
  'faceValueCents',
  'remainingValueCents',
  'currency',
  'fxFundingCurrency',
  'fxRate',
  'fxFundedCents',
  'recipientEmail',
  'recipientFirstName',
  'recipientLastName',
  'message',
  'utid',
  'allowedBrandKeys',
  'campaign',
  'externalId',
  'source',
  'expiresAt',
  'sentAt',
  'openedAt',
  'redeemedAt',
  'createdAt',
  'brandName',
  'brandImageUrl',
] as const;

/** An issued card's API fields in API order, with its reward's id second; never its credentials (docs/reports.md, Columns). */
export const CARD_REPORT_COLUMNS = [
  'id',
  'rewardId',
  'utid',
  'rewardName',
  'amountCents',
  'currency',
  'status',
  'redemptionInstructions',
  'issuedAt',
  'createdAt',
  'brandName',
  'brandImageUrl',
] as const;

type Cell = string | number | null;
const iso = (date: Date | null) => date?.toISOString() ?? null;

/**
 * The rows of the rewards and cards reports (docs/reports.md), read from the tables rewards owns:
 * the filters checked as `GET /v1/rewards` checks its query, and the rows walked newest first a
 * batch at a time (never the whole result in memory).
 */
@Injectable()
export class RewardReports {
  /**
   * The report's filters checked and completed: `given` in camelCase (the list's query names),
   * the creation range always set (366 days up to now when left out). 400 naming `filters.<field>`.
   */
  async filters(given: unknown, now: Date): Promise<Record<string, string>> {
    const query = await listFiltersAsQuery(given, ListRewardsQueryDto, REWARD_FILTER_FIELDS);
    const created = reportDateRange(query, now);
    const filter = rewardListFilterOf(query, created);
    const stored: Record<string, string | undefined> = {
      status: filter.status,
      externalId: filter.externalId,
      type: filter.type,
      campaign: filter.campaign,
      currency: filter.currency,
      createdGte: created.gte.toISOString(),
      createdLt: created.lt.toISOString(),
    };
    return Object.fromEntries(Object.entries(stored).filter((entry): entry is [string, string] => entry[1] !== undefined));
  }

  /** Rewards matching `filters` (as `filters()` answered them), newest first, as rows of REWARD_REPORT_COLUMNS. */
  async *rewardRows(read: Reader, accountId: string, filters: Record<string, string>, batchSize: number): AsyncGenerator<Cell[][]> {
    for await (const batch of this.rewards<RewardReportRow>(read, accountId, filters, batchSize, REWARD_ROW_COLUMNS)) {
      yield batch.map((r) => [
        r.id,
        r.type,
        r.status,
        Number(r.face_value_cents),
        Number(r.remaining_value_cents),
        r.currency,
        r.fx_funding_currency,
        r.fx_rate === null ? null : Number(r.fx_rate),
        r.fx_funded_cents === null ? null : Number(r.fx_funded_cents),
        r.recipient_email,
        r.recipient_first_name,
        r.recipient_last_name,
        r.message,
        r.utid,
        r.allowed_brand_keys?.join(' ') ?? null,
        r.campaign,
        r.external_id,
        r.source,
        iso(r.expires_at),
        iso(r.sent_at),
        iso(r.opened_at),
        iso(r.redeemed_at),
        iso(r.created_at),
        r.brand_name,
        r.brand_image_url,
      ]);
    }
  }

  /**
   * The cards of the rewards matching `filters`, by reward newest first and each reward's cards in
   * the order they were made, as rows of CARD_REPORT_COLUMNS. The sealed credentials column is not
   * even read.
   */
  async *cardRows(read: Reader, accountId: string, filters: Record<string, string>, batchSize: number): AsyncGenerator<Cell[][]> {
    for await (const rewards of this.rewards<{ id: string }>(read, accountId, filters, batchSize, 't.id')) {
      const cards = await read((manager) =>
        manager.getRepository(RewardCardEntity).find({
          select: ['id', 'rewardId', 'utid', 'rewardName', 'amountCents', 'currency', 'status', 'redemptionInstructions', 'issuedAt', 'createdAt', 'brandName', 'brandImageUrl'],
          where: { accountId, rewardId: In(rewards.map((r) => r.id)) },
          order: { seq: 'ASC' },
        }),
      );
      const byReward = new Map<string, RewardCardEntity[]>();
      for (const card of cards) byReward.set(card.rewardId, [...(byReward.get(card.rewardId) ?? []), card]);
      const rows = rewards.flatMap((reward) =>
        (byReward.get(reward.id) ?? []).map((c): Cell[] => [
          c.id,
          c.rewardId,
          c.utid,
          c.rewardName,
          c.amountCents,
          c.currency,
          c.status,
          c.redemptionInstructions,
          iso(c.issuedAt),
          iso(c.createdAt),
          c.brandName,
          c.brandImageUrl,
        ]),
      );
      if (rows.length) yield rows;
    }
  }

  private rewards<R extends object>(read: Reader, accountId: string, filters: Record<string, string>, batchSize: number, columns: string): AsyncGenerator<R[]> {
    const created = { gte: new Date(filters.createdGte), lt: new Date(filters.createdLt) };
    const equal = { status: filters.status, external_id: filters.externalId, type: filters.type, campaign: filters.campaign, currency: filters.currency };
    return readListBatches<R>(read, { entity: RewardEntity, accountId, filters: equal, created, columns }, batchSize);
  }
}

/** The columns of a rewards report's rows, as the driver returns them (bigint and numeric as strings). */
const REWARD_ROW_COLUMNS = [
  'id',
  'type',
  'status',
  'face_value_cents',
  'remaining_value_cents',
  'currency',
  'fx_funding_currency',
  'fx_rate',
  'fx_funded_cents',
  'recipient_email',
  'recipient_first_name',
  'recipient_last_name',
  'message',
  'utid',
  'allowed_brand_keys',
  'campaign',
  'external_id',
  'source',
  'expires_at',
  'sent_at',
  'opened_at',
  'redeemed_at',
  'created_at',
  'brand_name',
  'brand_image_url',
]
  .map((column) => `t.${column}`)
  .join(', ');

interface RewardReportRow {
  id: string;
  type: string;
  status: string;
  face_value_cents: string;
  remaining_value_cents: string;
  currency: string;
  fx_funding_currency: string | null;
  fx_rate: string | null;
  fx_funded_cents: string | null;
  recipient_email: string;
  recipient_first_name: string;
  recipient_last_name: string | null;
  message: string | null;
  utid: string | null;
  allowed_brand_keys: string[] | null;
  campaign: string | null;
  external_id: string | null;
  source: string;
  expires_at: Date | null;
  sent_at: Date | null;
  opened_at: Date | null;
  redeemed_at: Date | null;
  created_at: Date;
  brand_name: string | null;
  brand_image_url: string | null;
}
