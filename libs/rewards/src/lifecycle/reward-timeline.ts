import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { Condition, entityRow, newId, NewEvent, recordEventsIn, Statement } from '@app/core';
import { RewardEventEntity } from '../entities/reward-event.entity';

export type TimelineEvent = Pick<RewardEventEntity, 'id' | 'rewardId' | 'type' | 'metadata' | 'createdAt'>;

/** A timeline entry and, when merchants are told of it, its webhook (sent under the same `evt_` id). */
export interface TimelineEntry {
  event: TimelineEvent;
  webhook?: Omit<NewEvent, 'id'>;
}

/** A timeline event of `type` at `at` (the service's Clock: docs/testing.md, Time), with a fresh `evt_` id. */
export function timelineEvent(rewardId: string, type: string, at: Date, metadata: Record<string, unknown> = {}): TimelineEvent {
  return { id: newId('evt'), rewardId, type, metadata, createdAt: at };
}

/**
 * The reward timeline and the outbox events that go with it: an entry with a `webhook` part is
 * also recorded in the outbox under the same `evt_` id, so a merchant can match a webhook to the
 * reward's timeline. Always written in the caller's transaction or statement.
 */
@Injectable()
export class RewardTimeline {
  constructor(private readonly dataSource: DataSource) {}

  async record(manager: EntityManager, entries: TimelineEntry[]): Promise<void> {
    if (entries.length === 0) return;
    const statement = new Statement();
    this.recordIn(statement, entries);
    await manager.query(statement.text('SELECT 1'), statement.params);
  }

  /** The same as parts of a larger statement, done only if `onlyIf` holds. */
  recordIn(statement: Statement, entries: TimelineEntry[], options: { onlyIf?: Condition } = {}): void {
    if (entries.length === 0) return;
    const metadata = this.dataSource.getMetadata(RewardEventEntity);
    statement.insertRows(
      'new_timeline',
      'reward_events',
      entries.map((entry) => entityRow(metadata, entry.event)),
      options,
    );
    const webhooks = entries.filter((e) => e.webhook).map((e) => ({ ...e.webhook!, id: e.event.id }));
    if (webhooks.length) recordEventsIn(statement, webhooks, options);
  }
}
