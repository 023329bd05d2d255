import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, QueryFailedError, Repository } from 'typeorm';
import { Condition, Cte, InsufficientFundsError, ListPage, ListWindow, newId, NotFoundError, readListPage, readSnapshot, Statement } from '@app/core';
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
    private readonly dataSource: DataSource,
    @InjectRepository(WalletEntity) private readonly wallets: Repository<WalletEntity>,
  ) {}

  /**
   * Reserves funds (available to reserved). Throws InsufficientFundsError when the available balance
   * is too low; concurrent holds serialise on the wallet row, and the balance check constraint is
   * the final word, so no interleaving can overdraw. After that error the transaction is unusable.
   */
  async hold(manager: EntityManager, entry: LedgerEntry): Promise<void> {
    const statement = new Statement();
    this.holdIn(statement, entry);
    await this.run(manager, statement);
  }

  /**
   * The hold as part of a larger statement that commits as one: adds a CTE holding the funds when
   * `onlyIf` holds. Too little available makes the balance check fail the whole statement; pass
   * its error through `insufficientFundsOr`.
   */
  holdIn(statement: Statement, entry: LedgerEntry, options: { onlyIf?: Condition } = {}): Cte {
    return this.insertIn(statement, 'HOLD', entry.accountId, [entry], { onlyIf: options.onlyIf, once: 'fail' });
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
   * Holds funds for many rewards as a part of a larger statement (bulk sends; see `holdIn`). The
   * caller has checked, under `lockForUpdate`, that the wallet covers the total; the balance
   * constraint still has the last word.
   */
  holdManyIn(statement: Statement, accountId: string, entries: Omit<LedgerEntry, 'accountId'>[], options: { onlyIf?: Condition } = {}): Cte {
    return this.insertIn(statement, 'HOLD', accountId, entries, { onlyIf: options.onlyIf, once: 'fail' });
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

  /**
   * Spends reserved funds on an issued card, as a part of the statement that settles it
   * (docs/rewards.md, Issuance). The returned CTE holds the row written: none when this card was
   * already captured.
   */
  captureIn(statement: Statement, entry: LedgerEntry): Cte {
    return this.insertIn(statement, 'CAPTURE', entry.accountId, [entry], { once: 'skip' });
  }

  /** The same on its own. False when this card was already captured. */
  capture(manager: EntityManager, entry: LedgerEntry): Promise<boolean> {
    return this.write(manager, 'CAPTURE', entry);
  }

  /** Returns reserved funds to available (cancel, expiry, failed FIXED card). False if already released. */
  release(manager: EntityManager, entry: LedgerEntry): Promise<boolean> {
    return this.write(manager, 'RELEASE', entry);
  }

  /**
   * Releases for many things at once, of any number of wallets, as a part of a larger statement
   * (the expiry drain): one RELEASE row per entry, each once (a repeat inserts nothing), and each
   * wallet updated once for the statement with the sum of its rows (docs/wallet-ledger.md). The
   * returned CTE holds the rows written: the caller compares their number with the entries.
   */
  releaseEachIn(statement: Statement, entries: LedgerEntry[]): Cte {
    if (entries.length === 0) throw new Error('no ledger entries to write');
    entries.forEach((entry) => positiveCents(entry.amountCents));
    return statement.with(
      'released',
      `INSERT INTO wallet_transactions
         (id, account_id, kind, available_delta_cents, reserved_delta_cents, description, related_type, related_id)
       SELECT e.id, w.account_id, 'RELEASE', e.amount, -e.amount, e.description, e.related_type, e.related_id
         FROM unnest(${statement.param(entries.map(() => newId('wtx')))}::text[],
                     ${statement.param(entries.map((e) => e.accountId))}::text[],
                     ${statement.param(entries.map((e) => e.amountCents))}::bigint[],
                     ${statement.param(entries.map((e) => e.description ?? ''))}::text[],
                     ${statement.param(entries.map((e) => e.relatedType))}::text[],
                     ${statement.param(entries.map((e) => e.relatedId))}::text[])
                AS e (id, account_id, amount, description, related_type, related_id)
         JOIN wallets w ON w.account_id = e.account_id
       ON CONFLICT (kind, related_type, related_id) DO NOTHING
       RETURNING id`,
    );
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

  /** A page of the ledger, newest first, and its total from the kept counts, in one snapshot (docs/pagination.md). */
  listTransactions(accountId: string, window: ListWindow): Promise<ListPage<WalletTransactionEntity>> {
    return readSnapshot(this.dataSource, (manager) =>
      readListPage(manager, { entity: WalletTransactionEntity, accountId, countedAs: 'wallet_transactions', order: 'seq' }, window),
    );
  }

  /** A movement that happens once per thing it concerns: false when it already has. */
  private async write(manager: EntityManager, kind: WalletTransactionKind, entry: LedgerEntry): Promise<boolean> {
    const statement = new Statement();
    const written = this.insertIn(statement, kind, entry.accountId, [entry], { once: 'skip' });
    const [{ count }] = await this.run<{ count: number }>(manager, statement, `SELECT count(*)::int AS count FROM ${written}`);
    return count > 0;
  }

  /**
   * The one INSERT of ledger rows, of one kind and one wallet, however many: the trigger applies
   * each to the wallet. Each kind moves money once per related row (a unique key): a repeat either
   * fails the statement (`once: 'fail'`, holds, whose repeat would be a bug) or inserts nothing
   * (`once: 'skip'`, the others, which jobs may run twice). Rows go in only if the wallet exists.
   */
  private insertIn(
    statement: Statement,
    kind: WalletTransactionKind,
    accountId: string,
    entries: Omit<LedgerEntry, 'accountId'>[],
    options: { onlyIf?: Condition; once: 'fail' | 'skip' },
  ): Cte {
    if (entries.length === 0) throw new Error('no ledger entries to write');
    entries.forEach((entry) => positiveCents(entry.amountCents));
    const [available, reserved] = DELTAS[kind];
    return statement.with(
      'ledger',
      `INSERT INTO wallet_transactions
         (id, account_id, kind, available_delta_cents, reserved_delta_cents, description, related_type, related_id)
       SELECT e.id, w.account_id, ${statement.param(kind)}, e.available, e.reserved, e.description, e.related_type, e.related_id
         FROM wallets w,
              unnest(${statement.param(entries.map(() => newId('wtx')))}::text[],
                     ${statement.param(entries.map((e) => available * e.amountCents))}::bigint[],
                     ${statement.param(entries.map((e) => reserved * e.amountCents))}::bigint[],
                     ${statement.param(entries.map((e) => e.description ?? ''))}::text[],
                     ${statement.param(entries.map((e) => e.relatedType))}::text[],
                     ${statement.param(entries.map((e) => e.relatedId))}::text[])
                AS e (id, available, reserved, description, related_type, related_id)
        WHERE w.account_id = ${statement.param(accountId)} AND ${statement.condition(options.onlyIf)}${
          options.once === 'skip' ? '\n       ON CONFLICT (kind, related_type, related_id) DO NOTHING' : ''
        }
       RETURNING id`,
    );
  }

  private async run<T = unknown>(manager: EntityManager, statement: Statement, select = 'SELECT 1'): Promise<T[]> {
    try {
      return (await manager.query(statement.text(select), statement.params)) as T[];
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
