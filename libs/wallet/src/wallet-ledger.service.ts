import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, QueryFailedError, Repository } from 'typeorm';
import { InsufficientFundsError, newId, NotFoundError, pageWindow, Statement } from '@app/core';
import { WalletTransactionEntity, WalletRelatedType, WalletTransactionKind } from './entities/wallet-transaction.entity';
import { WalletEntity } from './entities/wallet.entity';

export interface LedgerEntry {
  accountId: string;
  amountCents: number;
  relatedType: WalletRelatedType;
  relatedId: string;
  description?: string;
}

/** Deltas of each kind, as multiples of the amount: [available, reserved]. */
const DELTAS: Record<WalletTransactionKind, [number, number]> = {
  TOPUP: [1, 0],
  HOLD: [-1, 1],
  CAPTURE: [0, -1],
  RELEASE: [1, -1],
};

/**
 * The one owner of wallet balances. Every method writes a ledger row inside the caller's
 * transaction, and a database trigger applies it to the wallet: the balance change, its ledger row
 * and the caller's own writes (reward, events) commit or roll back together.
 */
@Injectable()
export class WalletLedger {
  /** A wallet's currency never changes (the database refuses it), so it is read once per account. */
  private readonly currencies = new Map<string, string>();

  constructor(
    @InjectRepository(WalletEntity) private readonly wallets: Repository<WalletEntity>,
    @InjectRepository(WalletTransactionEntity) private readonly transactions: Repository<WalletTransactionEntity>,
  ) {}

  /**
   * Reserves funds (available to reserved). Throws InsufficientFundsError when the available balance
   * is too low; concurrent holds serialise on the wallet row, and the balance check constraint is
   * the final word, so no interleaving can overdraw. After that error the transaction is unusable.
   */
  async hold(manager: EntityManager, entry: LedgerEntry): Promise<void> {
    const statement = new Statement();
    this.holdIn(statement, 'hold', entry);
    try {
      await manager.query(statement.text('SELECT 1'), statement.params);
    } catch (error) {
      throw this.insufficientFundsOr(error);
    }
  }

  /**
   * The hold as part of a larger statement that commits as one: adds CTE `name` holding the funds
   * when `onlyIf` holds. Too little available makes the balance check fail the whole statement;
   * pass its error through `insufficientFundsOr`.
   */
  holdIn(statement: Statement, name: string, entry: LedgerEntry, onlyIf = 'true'): void {
    positiveCents(entry.amountCents);
    const amount = statement.param(entry.amountCents);
    statement.with(
      name,
      `INSERT INTO wallet_transactions
         (id, account_id, kind, available_delta_cents, reserved_delta_cents, description, related_type, related_id)
       SELECT ${statement.param(newId('wtx'))}, ${statement.param(entry.accountId)}, 'HOLD', -${amount}::bigint, ${amount}::bigint,
              ${statement.param(entry.description ?? '')}, ${statement.param(entry.relatedType)}, ${statement.param(entry.relatedId)}
        WHERE ${onlyIf}`,
    );
  }

  /** The wallet's currency, from memory after the first read. */
  async currencyOf(accountId: string): Promise<string> {
    const known = this.currencies.get(accountId);
    if (known) return known;
    const { currency } = await this.getWallet(accountId);
    if (this.currencies.size >= 100_000) this.currencies.clear();
    this.currencies.set(accountId, currency);
    return currency;
  }

  /**
   * Holds funds for many rewards in one statement (bulk sends). The caller has checked, under
   * `lockForUpdate`, that the wallet covers the total; the balance constraint still has the last word.
   */
  async holdMany(manager: EntityManager, accountId: string, entries: Omit<LedgerEntry, 'accountId'>[]): Promise<void> {
    if (entries.length === 0) return;
    try {
      await manager.query(
        `INSERT INTO wallet_transactions
           (id, account_id, kind, available_delta_cents, reserved_delta_cents, description, related_type, related_id)
         SELECT e.id, $1, 'HOLD', -e.amount, e.amount, e.description, e.related_type, e.related_id
           FROM unnest($2::text[], $3::bigint[], $4::text[], $5::text[], $6::text[])
                AS e (id, amount, description, related_type, related_id)`,
        [
          accountId,
          entries.map(() => newId('wtx')),
          entries.map((e) => e.amountCents),
          entries.map((e) => e.description ?? ''),
          entries.map((e) => e.relatedType),
          entries.map((e) => e.relatedId),
        ],
      );
    } catch (error) {
      throw this.insufficientFundsOr(error);
    }
  }

  /** Locks the wallet row until the caller's transaction ends and returns its balances. */
  async lockForUpdate(manager: EntityManager, accountId: string): Promise<WalletEntity> {
    const wallet = await manager
      .getRepository(WalletEntity)
      .createQueryBuilder('w')
      .setLock('pessimistic_write')
      .where('w.account_id = :accountId', { accountId })
      .getOne();
    if (!wallet) throw new NotFoundError('Wallet');
    return wallet;
  }

  /** Spends reserved funds on an issued card. Returns false when this card was already captured. */
  capture(manager: EntityManager, entry: LedgerEntry): Promise<boolean> {
    return this.write(manager, 'CAPTURE', entry);
  }

  /** Returns reserved funds to available (cancel, expiry, failed FIXED card). False if already released. */
  release(manager: EntityManager, entry: LedgerEntry): Promise<boolean> {
    return this.write(manager, 'RELEASE', entry);
  }

  /** Adds funds (a settled top-up). False when this top-up was already credited. */
  credit(manager: EntityManager, entry: LedgerEntry): Promise<boolean> {
    return this.write(manager, 'TOPUP', entry);
  }

  async getWallet(accountId: string): Promise<WalletEntity> {
    const wallet = await this.wallets.findOneBy({ accountId });
    if (!wallet) throw new NotFoundError('Wallet');
    return wallet;
  }

  async listTransactions(accountId: string, page: number, pageSize: number) {
    const { limit, offset } = pageWindow(page, pageSize);
    const [items, total] = await this.transactions.findAndCount({
      where: { accountId },
      order: { seq: 'DESC' },
      take: limit,
      skip: offset,
    });
    return { items, total };
  }

  private async write(
    manager: EntityManager,
    kind: WalletTransactionKind,
    entry: LedgerEntry,
  ): Promise<boolean> {
    positiveCents(entry.amountCents);
    const [available, reserved] = DELTAS[kind];
    try {
      const rows: unknown[] = await manager.query(
        `INSERT INTO wallet_transactions
           (id, account_id, kind, available_delta_cents, reserved_delta_cents, description, related_type, related_id)
         SELECT $1, account_id, $3, $4::bigint, $5::bigint, $6, $7, $8
           FROM wallets
          WHERE account_id = $2
         ON CONFLICT (kind, related_type, related_id) DO NOTHING
         RETURNING id`,
        [
          newId('wtx'),
          entry.accountId,
          kind,
          available * entry.amountCents,
          reserved * entry.amountCents,
          entry.description ?? '',
          entry.relatedType,
          entry.relatedId,
        ],
      );
      return rows.length > 0;
    } catch (error) {
      throw this.insufficientFundsOr(error);
    }
  }

  /** The balance check refusing a hold means the funds ran out; anything else is a real error. */
  insufficientFundsOr(error: unknown): unknown {
    const constraint = error instanceof QueryFailedError ? (error.driverError as { constraint?: string }).constraint : undefined;
    return constraint === 'wallets_available_check' ? new InsufficientFundsError() : error;
  }
}

function positiveCents(amountCents: number): void {
  if (!Number.isSafeInteger(amountCents) || amountCents <= 0) {
    throw new RangeError(`ledger amounts are positive integers of cents, got ${amountCents}`);
  }
}
