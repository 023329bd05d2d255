import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, QueryFailedError, Repository } from 'typeorm';
import { Condition, Cte, InsufficientFundsError, ListPage, ListWindow, newId, NotFoundError, readListPage, ReadRouting, Statement } from '@app/core';
import { toWalletTransactionDto, WalletTransactionDto } from './dto/wallet.dto';
import { WalletTransactionEntity, WalletRelatedType, WalletTransactionKind } from './entities/wallet-transaction.entity';
import { WalletEntity } from './entities/wallet.entity';

export interface LedgerEntry {
  accountId: string;
  /**
   * The wallet's currency (docs/currencies.md). Absent: the account's primary wallet, as before
   * wallets per currency existed, so every caller written then keeps moving the primary wallet.
   */
  currency?: string;
  amountCents: number;
  relatedType: WalletRelatedType;
  relatedId: string;
  description?: string;
}

/**
 * A conversion between two wallets of one account: `fromAmountCents` leaves the `fromCurrency`
 * wallet (CONVERSION_OUT), `toAmountCents` enters the `toCurrency` wallet (CONVERSION_IN), which is
 * opened if the account has none. The amounts are the caller's (libs/fx rounds them); the ledger
 * only moves them, both or neither.
 */
export interface ConversionEntry {
  accountId: string;
  fromCurrency: string;
  toCurrency: string;
  fromAmountCents: number;
  toAmountCents: number;
  /** `conversion` (a quote converted, fxc_) or `reward` (a send funded from another wallet, rw_). */
  relatedType: 'conversion' | 'reward';
  relatedId: string;
  description?: string;
}

/** The filters of `GET /v1/wallet/transactions` (docs/pagination.md, Filters). */
export interface WalletTransactionFilter {
  currency?: string;
  kind?: WalletTransactionKind;
  relatedId?: string;
  created?: { gte: Date; lt: Date };
}

/** Deltas of each kind, as multiples of the amount: [available, reserved]. */
const DELTAS: Record<WalletTransactionKind, [number, number]> = {
  TOPUP: [1, 0],
  HOLD: [-1, 1],
  CAPTURE: [0, -1],
  RELEASE: [1, -1],
  CONVERSION_OUT: [-1, 0],
  CONVERSION_IN: [1, 0],
};

/** Kinds that may be the first movement of a wallet, and so open it: money arriving. */
const OPENING_KINDS: readonly WalletTransactionKind[] = ['TOPUP', 'CONVERSION_IN'];

/**
 * The one owner of wallet balances. Every method writes a ledger row inside the caller's
 * transaction, and a database trigger applies it to its wallet: the balance change, its ledger row
 * and the caller's own writes (reward, events) commit or roll back together.
 *
 * An account has one wallet per currency it holds (docs/currencies.md). Every movement names its
 * wallet by `currency`; without one it moves the primary wallet (the account's own currency).
 */
@Injectable()
export class WalletLedger {
  /** The primary wallet's currency never changes (the database refuses it), so it is read once per account. */
  private readonly currencies = new Map<string, string>();

  constructor(
    private readonly dataSource: DataSource,
    @InjectRepository(WalletEntity) private readonly wallets: Repository<WalletEntity>,
    private readonly reads: ReadRouting,
  ) {}

  /**
   * Reserves funds (available to reserved). Throws InsufficientFundsError when the available balance
   * is too low (or the account holds no wallet in that currency); concurrent holds serialise on the
   * wallet row, and the balance check constraint is the final word, so no interleaving can
   * overdraw. After that error the transaction is unusable.
   */
  async hold(manager: EntityManager, entry: LedgerEntry): Promise<void> {
    const statement = new Statement();
    this.holdIn(statement, entry);
    await this.run(manager, statement, 'SELECT 1', entry.currency);
  }

  /**
   * The hold as part of a larger statement that commits as one: adds a CTE holding the funds when
   * `onlyIf` holds. Too little available makes the balance check fail the whole statement; pass
   * its error through `insufficientFundsOr`.
   */
  holdIn(statement: Statement, entry: LedgerEntry, options: { onlyIf?: Condition } = {}): Cte {
    return this.insertIn(statement, 'HOLD', entry.accountId, entry.currency, [entry], { onlyIf: options.onlyIf, once: 'fail' });
  }

  /** The primary wallet's currency (the account's own), from memory after the first read. */
  async currencyOf(accountId: string): Promise<string> {
    const known = this.currencies.get(accountId);
    if (known) return known;
    const { currency } = await this.getWallet(accountId);
    if (this.currencies.size >= 100_000) this.currencies.clear();
    this.currencies.set(accountId, currency);
    return currency;
  }

  /**
   * Holds funds for many rewards as a part of a larger statement (bulk sends; see `holdIn`), all
   * from one wallet: `options.currency`'s, or the primary one. The caller has checked, under
   * `lockForUpdate` of that wallet, that it covers the total; the balance constraint still has the
   * last word.
   */
  holdManyIn(
    statement: Statement,
    accountId: string,
    entries: Omit<LedgerEntry, 'accountId' | 'currency'>[],
    options: { onlyIf?: Condition; currency?: string } = {},
  ): Cte {
    return this.insertIn(statement, 'HOLD', accountId, options.currency, entries, { onlyIf: options.onlyIf, once: 'fail' });
  }

  /**
   * Locks a wallet row (the primary one, or `currency`'s) until the caller's transaction ends and
   * returns its balances. A currency the account holds no wallet in reads as an empty wallet (no
   * row to lock: a hold from it fails however the race goes).
   */
  async lockForUpdate(manager: EntityManager, accountId: string, currency?: string): Promise<WalletEntity> {
    const query = manager.getRepository(WalletEntity).createQueryBuilder('w').setLock('pessimistic_write').where('w.account_id = :accountId', { accountId });
    const wallet = await (currency === undefined ? query.andWhere('w.is_primary') : query.andWhere('w.currency = :currency', { currency })).getOne();
    if (wallet) return wallet;
    if (currency === undefined) throw new NotFoundError('Wallet');
    return emptyWallet(accountId, currency);
  }

  /**
   * Spends reserved funds on an issued card, as a part of the statement that settles it
   * (docs/rewards.md, Issuance). The returned CTE holds the row written: none when this card was
   * already captured.
   */
  captureIn(statement: Statement, entry: LedgerEntry): Cte {
    return this.insertIn(statement, 'CAPTURE', entry.accountId, entry.currency, [entry], { once: 'skip' });
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
   * (the expiry drain): one RELEASE row per entry (to its `currency`'s wallet, or its account's
   * primary one), each once (a repeat inserts nothing), and each wallet updated once for the
   * statement with the sum of its rows (docs/wallet-ledger.md). The returned CTE holds the rows
   * written: the caller compares their number with the entries.
   */
  releaseEachIn(statement: Statement, entries: LedgerEntry[]): Cte {
    if (entries.length === 0) throw new Error('no ledger entries to write');
    entries.forEach((entry) => positiveCents(entry.amountCents));
    return statement.with(
      'released',
      `INSERT INTO wallet_transactions
         (id, account_id, currency, kind, available_delta_cents, reserved_delta_cents, description, related_type, related_id)
       SELECT e.id, e.account_id,
              COALESCE(e.currency, (SELECT w.currency FROM wallets w WHERE w.account_id = e.account_id AND w.is_primary)),
              'RELEASE', e.amount, -e.amount, e.description, e.related_type, e.related_id
         FROM unnest(${statement.param(entries.map(() => newId('wtx')))}::text[],
                     ${statement.param(entries.map((e) => e.accountId))}::text[],
                     ${statement.param(entries.map((e) => e.currency ?? null))}::text[],
                     ${statement.param(entries.map((e) => e.amountCents))}::bigint[],
                     ${statement.param(entries.map((e) => e.description ?? ''))}::text[],
                     ${statement.param(entries.map((e) => e.relatedType))}::text[],
                     ${statement.param(entries.map((e) => e.relatedId))}::text[])
                AS e (id, account_id, currency, amount, description, related_type, related_id)
       ON CONFLICT (kind, related_type, related_id) DO NOTHING
       RETURNING id`,
    );
  }

  /**
   * Adds funds (a settled top-up) to the primary wallet or `currency`'s, opening that wallet on its
   * first credit. False when this top-up was already credited.
   */
  credit(manager: EntityManager, entry: LedgerEntry): Promise<boolean> {
    return this.write(manager, 'TOPUP', entry);
  }

  /**
   * Converts between two wallets of an account (docs/currencies.md, Ledger): a CONVERSION_OUT row
   * in the source wallet and a CONVERSION_IN row in the target one (opened if needed), in one
   * statement, so both move or neither. Throws InsufficientFundsError naming the source currency
   * when it cannot cover `fromAmountCents`; after that error the transaction is unusable. Each
   * conversion (its related id) moves money once: a repeat is a bug and fails.
   */
  async convert(manager: EntityManager, entry: ConversionEntry): Promise<void> {
    const statement = new Statement();
    this.convertIn(statement, entry);
    await this.run(manager, statement, 'SELECT 1', entry.fromCurrency);
  }

  /**
   * The conversion as part of a larger statement (a send funded from another wallet): after it, in
   * the same statement, a `holdIn` of the target currency takes the converted amount (the target
   * wallet's rows are applied together, so the money never needs to sit there first). Too little in
   * the source wallet fails the whole statement; pass its error through
   * `insufficientFundsOr(error, entry.fromCurrency)`.
   */
  convertIn(statement: Statement, entry: ConversionEntry, options: { onlyIf?: Condition } = {}): Cte {
    return this.convertEachIn(statement, [entry], options);
  }

  /**
   * Several conversions of one account as part of a larger statement (a bulk send whose items are
   * funded from other wallets): each entry's CONVERSION_OUT and CONVERSION_IN rows, every target
   * wallet opened if needed, all in one INSERT. Too little in a source wallet for the sum of its
   * entries fails the whole statement. Each entry's related id converts once.
   */
  convertEachIn(statement: Statement, entries: ConversionEntry[], options: { onlyIf?: Condition } = {}): Cte {
    if (entries.length === 0) throw new Error('no conversions to write');
    const accountId = entries[0].accountId;
    for (const entry of entries) {
      positiveCents(entry.fromAmountCents);
      positiveCents(entry.toAmountCents);
      if (entry.fromCurrency === entry.toCurrency) throw new Error(`a conversion needs two currencies, got ${entry.fromCurrency} twice`);
      if (entry.accountId !== accountId) throw new Error('conversions written together are of one account');
    }
    const account = `${statement.param(accountId)}::text`;
    const only = statement.condition(options.onlyIf);
    for (const target of new Set(entries.map((entry) => entry.toCurrency))) {
      this.openWalletIn(statement, account, `${statement.param(target)}::text`, only);
    }
    const rows = entries.flatMap((entry) => {
      const description = entry.description ?? `Conversion ${entry.relatedId}`;
      return [
        { currency: entry.fromCurrency, kind: 'CONVERSION_OUT', available: -entry.fromAmountCents, description, entry },
        { currency: entry.toCurrency, kind: 'CONVERSION_IN', available: entry.toAmountCents, description, entry },
      ];
    });
    return statement.with(
      'conversion',
      `INSERT INTO wallet_transactions
         (id, account_id, currency, kind, available_delta_cents, reserved_delta_cents, description, related_type, related_id)
       SELECT e.id, ${account}, e.currency, e.kind, e.available, 0, e.description, e.related_type, e.related_id
         FROM unnest(${statement.param(rows.map(() => newId('wtx')))}::text[],
                     ${statement.param(rows.map((r) => r.currency))}::text[],
                     ${statement.param(rows.map((r) => r.kind))}::text[],
                     ${statement.param(rows.map((r) => r.available))}::bigint[],
                     ${statement.param(rows.map((r) => r.description))}::text[],
                     ${statement.param(rows.map((r) => r.entry.relatedType))}::text[],
                     ${statement.param(rows.map((r) => r.entry.relatedId))}::text[])
                AS e (id, currency, kind, available, description, related_type, related_id)
        WHERE ${only}
       RETURNING id`,
    );
  }

  /** The primary wallet, or `currency`'s; a currency the account holds no wallet in reads as an empty wallet. */
  async getWallet(accountId: string, currency?: string): Promise<WalletEntity> {
    if (currency === undefined) {
      const wallet = await this.wallets.findOneBy({ accountId, isPrimary: true });
      if (!wallet) throw new NotFoundError('Wallet');
      return wallet;
    }
    return (await this.wallets.findOneBy({ accountId, currency })) ?? emptyWallet(accountId, currency);
  }

  /** Every wallet of the account: the primary one first, then by currency code. */
  listWallets(accountId: string, manager: EntityManager = this.dataSource.manager): Promise<WalletEntity[]> {
    return manager
      .getRepository(WalletEntity)
      .createQueryBuilder('w')
      .where('w.account_id = :accountId', { accountId })
      .orderBy('w.is_primary', 'DESC')
      .addOrderBy('w.currency')
      .getMany();
  }

  /**
   * A page of the ledger, newest first (of every wallet, or of `currency`'s), and its total, in one
   * snapshot (docs/pagination.md): from the kept counts when only `currency` filters it, counted
   * over the matches (through an index) with `kind`, `relatedId` or a creation range.
   */
  listTransactions(accountId: string, window: ListWindow, filter: WalletTransactionFilter = {}): Promise<ListPage<WalletTransactionEntity>> {
    const kept = filter.kind === undefined && filter.relatedId === undefined && filter.created === undefined;
    const countedAs = !kept ? null : filter.currency ? `wallet_transactions:${filter.currency}` : 'wallet_transactions';
    const filters = { currency: filter.currency, kind: filter.kind, related_id: filter.relatedId };
    // From the read replica when one serves (docs/scaling.md, Read replica).
    return this.reads.snapshot((manager) =>
      readListPage(manager, { entity: WalletTransactionEntity, accountId, filters, created: filter.created, countedAs, order: 'seq' }, window),
    );
  }

  /**
   * Every movement of the account concerning one of `relatedIds` (a reward and its cards), oldest
   * first, read through `manager` (the caller's snapshot). Bounded by the ids: an index on
   * (account_id, related_id) finds them.
   */
  async transactionsOf(manager: EntityManager, accountId: string, relatedIds: string[]): Promise<WalletTransactionDto[]> {
    if (relatedIds.length === 0) return [];
    const rows = await manager
      .getRepository(WalletTransactionEntity)
      .createQueryBuilder('t')
      .where('t.account_id = :accountId AND t.related_id IN (:...relatedIds)', { accountId, relatedIds })
      .orderBy('t.seq', 'ASC')
      .getMany();
    return rows.map(toWalletTransactionDto);
  }

  /** A movement that happens once per thing it concerns: false when it already has. */
  private async write(manager: EntityManager, kind: WalletTransactionKind, entry: LedgerEntry): Promise<boolean> {
    const statement = new Statement();
    const written = this.insertIn(statement, kind, entry.accountId, entry.currency, [entry], { once: 'skip' });
    const [{ count }] = await this.run<{ count: number }>(manager, statement, `SELECT count(*)::int AS count FROM ${written}`, entry.currency);
    return count > 0;
  }

  /**
   * The one INSERT of ledger rows, of one kind and one wallet, however many: the trigger applies
   * each to the wallet. Each kind moves money once per related row (a unique key): a repeat either
   * fails the statement (`once: 'fail'`, holds, whose repeat would be a bug) or inserts nothing
   * (`once: 'skip'`, the others, which jobs may run twice). The wallet is `currency`'s, or the
   * account's primary one; money arriving (a top-up) opens it if needed, anything else needs it to
   * exist (the ledger's foreign key), in this statement or before.
   */
  private insertIn(
    statement: Statement,
    kind: WalletTransactionKind,
    accountId: string,
    currency: string | undefined,
    entries: Omit<LedgerEntry, 'accountId' | 'currency'>[],
    options: { onlyIf?: Condition; once: 'fail' | 'skip' },
  ): Cte {
    if (entries.length === 0) throw new Error('no ledger entries to write');
    entries.forEach((entry) => positiveCents(entry.amountCents));
    const [available, reserved] = DELTAS[kind];
    const account = `${statement.param(accountId)}::text`;
    const only = statement.condition(options.onlyIf);
    let wallet: string;
    if (currency === undefined) {
      wallet = `(SELECT w.currency FROM wallets w WHERE w.account_id = ${account} AND w.is_primary)`;
    } else {
      wallet = `${statement.param(currency)}::text`;
      if (OPENING_KINDS.includes(kind)) this.openWalletIn(statement, account, wallet, only);
    }
    return statement.with(
      'ledger',
      `INSERT INTO wallet_transactions
         (id, account_id, currency, kind, available_delta_cents, reserved_delta_cents, description, related_type, related_id)
       SELECT e.id, ${account}, ${wallet}, ${statement.param(kind)}, e.available, e.reserved, e.description, e.related_type, e.related_id
         FROM unnest(${statement.param(entries.map(() => newId('wtx')))}::text[],
                     ${statement.param(entries.map((e) => available * e.amountCents))}::bigint[],
                     ${statement.param(entries.map((e) => reserved * e.amountCents))}::bigint[],
                     ${statement.param(entries.map((e) => e.description ?? ''))}::text[],
                     ${statement.param(entries.map((e) => e.relatedType))}::text[],
                     ${statement.param(entries.map((e) => e.relatedId))}::text[])
                AS e (id, available, reserved, description, related_type, related_id)
        WHERE ${only}${options.once === 'skip' ? '\n       ON CONFLICT (kind, related_type, related_id) DO NOTHING' : ''}
       RETURNING id`,
    );
  }

  /**
   * Opens the account's wallet in a currency, empty, unless it exists (a part of the statement that
   * moves money into it: the trigger applying that statement's rows sees it).
   */
  private openWalletIn(statement: Statement, account: string, currency: string, only: string): Cte {
    return statement.with(
      'opened_wallet',
      `INSERT INTO wallets (account_id, currency) SELECT ${account}, ${currency} WHERE ${only}
       ON CONFLICT (account_id, currency) DO NOTHING`,
    );
  }

  private async run<T = unknown>(manager: EntityManager, statement: Statement, select: string, currency?: string): Promise<T[]> {
    try {
      return (await manager.query(statement.text(select), statement.params)) as T[];
    } catch (error) {
      throw this.insufficientFundsOr(error, currency);
    }
  }

  /**
   * The balance check refusing a movement means the funds ran out, and a hold from a wallet the
   * account does not hold means the same (it holds 0): `402 insufficient_funds`, naming the
   * wallet's currency (`currency`, or read from the database's report). Anything else is a real
   * error and passes through.
   */
  insufficientFundsOr(error: unknown, currency?: string): unknown {
    const driverError = error instanceof QueryFailedError ? (error.driverError as { constraint?: string; detail?: string }) : undefined;
    const constraint = driverError?.constraint;
    if (constraint !== 'wallets_available_check' && constraint !== 'wallet_transactions_wallet_fkey') return error;
    const named = currency ?? /\(account_id, currency\)=\([^,]+, ([A-Z]{3})\)|Failing row contains \([^,]+, ([A-Z]{3}),/.exec(driverError?.detail ?? '')?.slice(1).find(Boolean);
    return named ? new InsufficientFundsError(`The ${named} wallet balance is too low for this request.`) : new InsufficientFundsError();
  }
}

/** A wallet the account does not hold yet, as it reads: in that currency, empty. */
function emptyWallet(accountId: string, currency: string): WalletEntity {
  return Object.assign(new WalletEntity(), { accountId, currency, isPrimary: false, availableCents: 0, reservedCents: 0, updatedAt: new Date(0) });
}

function positiveCents(amountCents: number): void {
  if (!Number.isSafeInteger(amountCents) || amountCents <= 0) {
    throw new RangeError(`ledger amounts are positive integers of cents, got ${amountCents}`);
  }
}
