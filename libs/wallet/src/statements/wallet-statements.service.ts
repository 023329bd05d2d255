import { Injectable } from '@nestjs/common';
import { AccountService } from '@app/account';
import { BadRequestError, Clock, formatMoney, PdfBranding, queryRows, ReadRouting, renderPdf, ValidationError } from '@app/core';
import { Currencies } from '../currencies';
import { StatementDto } from '../dto/statement.dto';
import { WalletLedger } from '../wallet-ledger.service';

const MONTH = /^([0-9]{4})-(0[1-9]|1[0-2])$/;

/** A month's bounds in UTC: [start, end). */
export interface StatementMonth {
  month: string;
  start: Date;
  end: Date;
}

/** `YYYY-MM` as its UTC bounds; anything else is `400` on `month`. */
export function parseStatementMonth(month: string): StatementMonth {
  const match = MONTH.exec(month);
  if (!match || Number(match[1]) < 1970) {
    throw new BadRequestError([{ path: 'month', message: 'month must be a month as YYYY-MM (01 to 12), from 1970' }]);
  }
  const [year, index] = [Number(match[1]), Number(match[2]) - 1];
  return { month, start: new Date(Date.UTC(year, index, 1)), end: new Date(Date.UTC(year, index + 1, 1)) };
}

interface StatementRow {
  available: string;
  reserved: string;
  after_available: string;
  after_reserved: string;
  topup: string;
  held: string;
  captured: string;
  released: string;
  conversion_in: string;
  conversion_out: string;
}

/**
 * Monthly statements of a wallet (docs/statements.md), computed from the ledger in one statement:
 * the wallet's balances now, less what moved since the month's end, are its closing balances; the
 * month's movements by kind, taken back off them, its opening balances. The one aggregate reads the
 * rows of the account created since the month began, through the index on
 * `wallet_transactions (account_id, created_at) INCLUDE (kind, currency)`: a recent month (the
 * ones asked for) costs its own rows and those since, never the account's whole history.
 * Balances and rows are read in one statement, so one snapshot: they always agree.
 */
@Injectable()
export class WalletStatements {
  constructor(
    private readonly ledger: WalletLedger,
    private readonly currencies: Currencies,
    private readonly accounts: AccountService,
    private readonly clock: Clock,
    private readonly reads: ReadRouting,
  ) {}

  /** `400` for a malformed month or an unsupported currency, `422` for a month not begun. */
  async monthly(accountId: string, month: string, requested?: string): Promise<StatementDto> {
    const bounds = parseStatementMonth(month);
    const currency = requested === undefined ? await this.ledger.currencyOf(accountId) : await this.currencies.check(accountId, requested, 'currency');
    if (bounds.start.getTime() > this.clock.now().getTime()) throw new ValidationError(`The month ${month} has not begun.`);
    // From the read replica when one serves (docs/scaling.md, Read replica).
    const [row] = await this.reads.read((manager) =>
      queryRows<StatementRow>(
      manager,
      `SELECT coalesce(w.available_cents, 0)::bigint AS available, coalesce(w.reserved_cents, 0)::bigint AS reserved, m.*
         FROM (SELECT coalesce(sum(t.available_delta_cents) FILTER (WHERE t.created_at >= $4), 0)::bigint AS after_available,
                      coalesce(sum(t.reserved_delta_cents) FILTER (WHERE t.created_at >= $4), 0)::bigint AS after_reserved,
                      coalesce(sum(t.available_delta_cents) FILTER (WHERE t.kind = 'TOPUP' AND t.created_at < $4), 0)::bigint AS topup,
                      coalesce(sum(t.reserved_delta_cents) FILTER (WHERE t.kind = 'HOLD' AND t.created_at < $4), 0)::bigint AS held,
                      coalesce(-sum(t.reserved_delta_cents) FILTER (WHERE t.kind = 'CAPTURE' AND t.created_at < $4), 0)::bigint AS captured,
                      coalesce(sum(t.available_delta_cents) FILTER (WHERE t.kind = 'RELEASE' AND t.created_at < $4), 0)::bigint AS released,
                      coalesce(sum(t.available_delta_cents) FILTER (WHERE t.kind = 'CONVERSION_IN' AND t.created_at < $4), 0)::bigint AS conversion_in,
                      coalesce(-sum(t.available_delta_cents) FILTER (WHERE t.kind = 'CONVERSION_OUT' AND t.created_at < $4), 0)::bigint AS conversion_out
                 FROM wallet_transactions t
                WHERE t.account_id = $1 AND t.currency = $2 AND t.created_at >= $3) m
         LEFT JOIN wallets w ON w.account_id = $1 AND w.currency = $2`,
      [accountId, currency, bounds.start, bounds.end],
      ),
    );
    const n = (value: string) => Number(value);
    const movements = {
      topupCents: n(row.topup),
      heldCents: n(row.held),
      capturedCents: n(row.captured),
      releasedCents: n(row.released),
      conversionInCents: n(row.conversion_in),
      conversionOutCents: n(row.conversion_out),
    };
    const closingAvailableCents = n(row.available) - n(row.after_available);
    const closingReservedCents = n(row.reserved) - n(row.after_reserved);
    const m = movements;
    return {
      month,
      currency,
      openingAvailableCents: closingAvailableCents - m.topupCents + m.heldCents - m.releasedCents - m.conversionInCents + m.conversionOutCents,
      openingReservedCents: closingReservedCents - m.heldCents + m.capturedCents + m.releasedCents,
      ...movements,
      closingAvailableCents,
      closingReservedCents,
    };
  }

  /** The account's name and sender branding, as its e-mails show them. */
  async branding(accountId: string): Promise<PdfBranding> {
    const account = await this.accounts.get(accountId);
    return { accountName: account.name, senderName: account.senderName, brandColor: account.brandColor };
  }

  /** The statement as a one-page PDF. */
  async pdf(accountId: string, statement: StatementDto): Promise<Buffer> {
    const money = (cents: number) => formatAmount(cents, statement.currency);
    const current = parseStatementMonth(statement.month).end.getTime() > this.clock.now().getTime();
    const monthName = parseStatementMonth(statement.month).start.toLocaleString('en-US', { month: 'long', year: 'numeric', timeZone: 'UTC' });
    return renderPdf(await this.branding(accountId), {
      title: `Wallet statement, ${monthName}`,
      subtitle: [
        `Currency: ${statement.currency}`,
        `Period: ${statement.month}, UTC${current ? ' (month in progress: closing balances as of the moment of this statement)' : ''}`,
      ],
      lines: [
        { label: 'Opening available', value: money(statement.openingAvailableCents), total: true },
        { label: 'Opening reserved', value: money(statement.openingReservedCents) },
        { label: 'Top-ups', value: money(statement.topupCents) },
        { label: 'Held for rewards sent', value: money(statement.heldCents) },
        { label: 'Captured for issued cards', value: money(statement.capturedCents) },
        { label: 'Released back to available', value: money(statement.releasedCents) },
        { label: 'Converted in', value: money(statement.conversionInCents) },
        { label: 'Converted out', value: money(statement.conversionOutCents) },
        { label: 'Closing available', value: money(statement.closingAvailableCents), total: true },
        { label: 'Closing reserved', value: money(statement.closingReservedCents) },
      ],
      footer: [
        'Closing available = opening available + top-ups − held + released + converted in − converted out.',
        'Closing reserved = opening reserved + held − captured − released.',
        `Made ${this.clock.now().toISOString()} from the wallet's ledger.`,
      ],
    });
  }
}

/** `1,234.56 USD`: the code rather than a symbol, so currencies sharing a symbol stay apart. */
export function formatAmount(cents: number, currency: string): string {
  const formatted = formatMoney(Math.abs(cents), currency).replace(/[^0-9.,]/g, '');
  return `${cents < 0 ? '−' : ''}${formatted} ${currency}`;
}
